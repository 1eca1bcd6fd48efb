// browser-check.js -- loads a /pi-status page in Debian's chromium
// (headless, driven by puppeteer-core from build/browser/) at each width
// given and prints one JSON object a width: the page's and the window's
// widths, the member URLs shown, the charts drawn (with data), and the
// console errors.  Used by t/pistats/browser.t.
//
//   node browser-check.js URL WIDTH[xHEIGHT] ... [--screenshot=DIR]
//
// Bounded: every wait has a deadline (60 s a page); exits 2 on a failure
// of its own (no browser, no page).
'use strict';
const path = require('path');
const puppeteer = require(path.join(__dirname, '..', '..', 'build',
                                    'browser', 'node_modules',
                                    'puppeteer-core'));

async function check(browser, url, width, height, shotDir) {
    const page = await browser.newPage();
    const errors = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('requestfailed', (r) => errors.push('failed: ' + r.url()));
    await page.setViewport({ width, height });
    const res = await page.goto(url, { waitUntil: 'load', timeout: 60000 });
    const out = await page.evaluate(() => ({
        scrollWidth: document.documentElement.scrollWidth,
        innerWidth: window.innerWidth,
        members: Array.from(document.querySelectorAll('tbody.m td.name'))
            .map((td) => td.firstChild ? td.firstChild.textContent.trim() : ''),
        charts: Array.from(document.querySelectorAll('svg.chart')).map((svg) => {
            const r = svg.getBoundingClientRect();
            const lines = svg.querySelectorAll('polyline.temp');
            const area = svg.querySelector('polygon.rate');
            return {
                width: r.width, height: r.height,
                right: r.right,
                tempPoints: Array.from(lines).reduce((n, l) => n + l.points.numberOfItems, 0),
                ratePoints: area ? area.points.numberOfItems : 0,
            };
        }),
        legend: document.querySelectorAll('.legend .st').length,
    }));
    out.status = res ? res.status() : 0;
    out.width = width;
    out.errors = errors;
    if (shotDir) {
        await page.screenshot({ path: path.join(shotDir, `pi-status-${width}.png`),
                                fullPage: true });
    }
    await page.close();
    return out;
}

async function main() {
    const args = process.argv.slice(2);
    const shot = args.find((a) => a.startsWith('--screenshot='));
    const rest = args.filter((a) => !a.startsWith('--'));
    const url = rest.shift();
    const browser = await puppeteer.launch({
        executablePath: process.env.PI_CHROMIUM || '/usr/bin/chromium',
        headless: true,            // the new headless mode
        args: ['--no-sandbox', '--headless=new', '--disable-gpu',
               '--disable-dev-shm-usage', '--hide-scrollbars'],
        timeout: 60000,
        protocolTimeout: 120000,
    });
    try {
        for (const w of rest) {
            const [width, height] = w.split('x').map(Number);
            const r = await check(browser, url, width, height || 768,
                                  shot ? shot.slice(13) : null);
            process.stdout.write(JSON.stringify(r) + '\n');
        }
    } finally {
        await browser.close();
    }
}

main().catch((e) => { process.stderr.write(String(e && e.stack || e) + '\n'); process.exit(2); });
