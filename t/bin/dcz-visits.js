// dcz-visits.js -- visits one page several times in Debian's chromium
// (headless, driven by puppeteer-core from build/browser/), as a
// returning reader does, and prints one JSON object a visit: what the
// browser sent (Accept-Encoding, Available-Dictionary), what came back
// (status, Content-Encoding), the bytes it received for the document
// (CDP's encodedDataLength: headers and body as they crossed the wire)
// and the text of the DOM element --text (the page's version).  Used by
// t/offload/dictionary_browser.t and to study chromium (RFC 9842).
//
// ({n} in URL becomes the visit number: 1, 2, ...)
//   node dcz-visits.js URL VISITS [--text=SELECTOR]
//        [--wait=URL --match=REGEX] [--trust-spki=HASH]
//
// --wait/--match: after each visit, until the body of --wait matches
// --match (the server has served the dictionary: chromium fetches it
// "while idle"), poll it every 200 ms; at most 30 s, then the next visit
// goes ahead anyway (and the output shows it: "waited": false).
// --trust-spki: a base64 SPKI hash the browser takes as trusted
// (--ignore-certificate-errors-spki-list), for a TLS variant.
//
// Bounded: every wait has a deadline; exits 2 on a failure of its own.
'use strict';
const path = require('path');
const http = require('http');
const https = require('https');
const puppeteer = require(path.join(__dirname, '..', '..', 'build',
                                    'browser', 'node_modules',
                                    'puppeteer-core'));

function fetchText(url) {
    return new Promise((resolve) => {
        const mod = url.startsWith('https:') ? https : http;
        const req = mod.get(url, { timeout: 5000, rejectUnauthorized: false },
                            (res) => {
            let s = '';
            res.setEncoding('utf8');
            res.on('data', (d) => { s += d; });
            res.on('end', () => resolve(s));
        });
        req.on('timeout', () => { req.destroy(); resolve(''); });
        req.on('error', () => resolve(''));
    });
}

async function waitFor(url, re, seconds) {
    const end = Date.now() + seconds * 1000;
    while (Date.now() < end) {
        if (re.test(await fetchText(url))) return true;
        await new Promise((r) => setTimeout(r, 200));
    }
    return false;
}

async function visit(page, cdp, url, sel) {
    const seen = { sent: {}, got: {}, bytes: null };
    let docId = null;
    const onReq = (e) => {
        if (e.type === 'Document' && docId === null) docId = e.requestId;
    };
    const onExtra = (e) => {
        if (e.requestId === docId) seen.sent = e.headers;
    };
    const onResp = (e) => {
        if (e.requestId === docId) seen.got = e.response.headers;
    };
    const onDone = (e) => {
        if (e.requestId === docId) seen.bytes = e.encodedDataLength;
    };
    cdp.on('Network.requestWillBeSent', onReq);
    cdp.on('Network.requestWillBeSentExtraInfo', onExtra);
    cdp.on('Network.responseReceived', onResp);
    cdp.on('Network.loadingFinished', onDone);
    const res = await page.goto(url, { waitUntil: 'load', timeout: 60000 });
    const end = Date.now() + 10000;
    while (seen.bytes === null && Date.now() < end) {
        await new Promise((r) => setTimeout(r, 50));
    }
    cdp.off('Network.requestWillBeSent', onReq);
    cdp.off('Network.requestWillBeSentExtraInfo', onExtra);
    cdp.off('Network.responseReceived', onResp);
    cdp.off('Network.loadingFinished', onDone);
    const lower = (h) => Object.fromEntries(
        Object.entries(h || {}).map(([k, v]) => [k.toLowerCase(), v]));
    const sent = lower(seen.sent), got = lower(seen.got);
    return {
        status: res ? res.status() : 0,
        accept_encoding: sent['accept-encoding'] || null,
        available_dictionary: sent['available-dictionary'] || null,
        content_encoding: got['content-encoding'] || null,
        bytes: seen.bytes,
        text: sel ? await page.evaluate((s) => {
            const e = document.querySelector(s);
            return e ? e.textContent : null;
        }, sel) : null,
        length: await page.evaluate(() => document.documentElement.outerHTML.length),
    };
}

async function main() {
    const args = process.argv.slice(2);
    const opt = (k) => {
        const a = args.find((x) => x.startsWith(`--${k}=`));
        return a ? a.slice(k.length + 3) : null;
    };
    const [url, n] = args.filter((a) => !a.startsWith('--'));
    const flags = ['--no-sandbox', '--headless=new', '--disable-gpu',
                   '--disable-dev-shm-usage', '--no-first-run',
                   '--disable-component-update', '--disable-sync'];
    if (opt('trust-spki')) {
        flags.push(`--ignore-certificate-errors-spki-list=${opt('trust-spki')}`);
    }
    const browser = await puppeteer.launch({
        executablePath: process.env.PI_CHROMIUM || '/usr/bin/chromium',
        headless: true, args: flags, timeout: 60000, protocolTimeout: 120000,
    });
    try {
        const page = await browser.newPage();
        const cdp = await page.target().createCDPSession();
        await cdp.send('Network.enable');
        const re = opt('match') ? new RegExp(opt('match')) : null;
        for (let i = 1; i <= Number(n); i++) {
            const r = await visit(page, cdp, url.replace(/\{n\}/g, String(i)),
                                  opt('text'));
            r.visit = i;
            if (opt('wait') && re) {
                const t0 = Date.now();
                r.waited = await waitFor(opt('wait'), re, 30);
                r.wait_ms = Date.now() - t0;
            }
            process.stdout.write(JSON.stringify(r) + '\n');
        }
    } finally {
        await browser.close();
    }
}

main().catch((e) => { process.stderr.write(String(e && e.stack || e) + '\n'); process.exit(2); });
