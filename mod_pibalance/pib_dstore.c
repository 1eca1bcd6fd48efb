/* pib_dstore.c -- the master's dictionaries on disk (pure POSIX;
 * contracts and the layout in pib_dstore.h).
 *
 * Cost: a put is one temporary file written, fsync'd no (a dictionary
 * lost in a crash is made again), renamed; a get is one open and read
 * per child per dictionary (pib_dcache.c keeps it); a prune reads the
 * directory and the first bytes of each file (a few dozen files: the
 * size bound divided by tens of kilobytes) and runs after each put, not
 * per request.  Eviction worked example (limit 100, lifetime 50, now
 * 100; sizes in bytes):
 *
 *   hex  size  used  created  current   result
 *   a     40    90     60       yes     kept (current, used last)
 *   b     40    80     55       no      kept (40 + 40 <= 100)
 *   c     40    70     52       no      evicted: least used, over 100
 *   d     10    99     40       no      evicted: created + 50 <= 100
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pib_dstore.h"
#include "pib_dcz.h"

static const char pib_dmagic[] = "PIBDICT1\n";

/* ---- eviction (pure) ----------------------------------------------------- */

static int pib_dstore_order(const void *a, const void *b)
{
    const pib_dstore_ent *x = *(pib_dstore_ent *const *)a;
    const pib_dstore_ent *y = *(pib_dstore_ent *const *)b;

    if (x->current != y->current) {
        return x->current - y->current;     /* non-current first */
    }
    if (x->used != y->used) {
        return x->used < y->used ? -1 : 1;
    }
    if (x->created != y->created) {
        return x->created < y->created ? -1 : 1;
    }
    return strcmp(x->hex, y->hex);
}

size_t pib_dstore_victims(pib_dstore_ent *e, size_t n,
                          unsigned long long limit, long long now,
                          long long lifetime)
{
    pib_dstore_ent **order;
    unsigned long long total = 0;
    size_t i, marked = 0;

    for (i = 0; i < n; i++) {
        e[i].evict = e[i].created + lifetime <= now;
        if (e[i].evict) {
            marked++;
        }
        else {
            total += e[i].size;
        }
    }
    if (total <= limit || (order = malloc(n * sizeof(*order))) == NULL) {
        return marked;
    }
    for (i = 0; i < n; i++) {
        order[i] = &e[i];
    }
    qsort(order, n, sizeof(*order), pib_dstore_order);
    for (i = 0; i < n && total > limit; i++) {
        if (!order[i]->evict) {
            order[i]->evict = 1;
            total -= order[i]->size;
            marked++;
        }
    }
    free(order);
    return marked;
}

/* ---- the header ------------------------------------------------------------ */

static const char *pib_dkind_names[] = { "page", "trained", "self" };

size_t pib_dmeta_format(const pib_dmeta *m, char *out, size_t cap)
{
    const char *p;
    int n;

    for (p = m->prefix; *p != '\0'; p++) {
        if (*p < 0x21 || *p > 0x7e) {
            return 0;
        }
    }
    if (m->prefix[0] == '\0' || (unsigned)m->kind > PIB_DKIND_SELF) {
        return 0;
    }
    n = snprintf(out, cap, "%sprefix %s\nkind %s\ncreated %lld\n"
                 "ratio %.6f\n\n", pib_dmagic, m->prefix,
                 pib_dkind_names[m->kind], m->created, m->ratio);
    return n > 0 && (size_t)n < cap ? (size_t)n : 0;
}

/* Each known key once, with a valid value; unknown keys (a later
 * version's) ignored. */
int pib_dmeta_parse(const unsigned char *buf, size_t n, pib_dmeta *m,
                    size_t *body)
{
    size_t at = sizeof(pib_dmagic) - 1, i;
    int have = 0;

    memset(m, 0, sizeof(*m));
    if (n < at || memcmp(buf, pib_dmagic, at) != 0) {
        return -1;
    }
    while (at < n && buf[at] != '\n') {
        char line[PIB_DSTORE_PREFIX_MAX + 16], *sp;
        size_t end = at;

        while (end < n && buf[end] != '\n') {
            end++;
        }
        if (end == n || end - at >= sizeof(line)) {
            return -1;
        }
        memcpy(line, buf + at, end - at);
        line[end - at] = '\0';
        at = end + 1;
        if ((sp = strchr(line, ' ')) == NULL) {
            return -1;
        }
        *sp++ = '\0';
        if (strcmp(line, "prefix") == 0) {
            if ((have & 1) || *sp == '\0'
                || strlen(sp) > PIB_DSTORE_PREFIX_MAX) {
                return -1;
            }
            strcpy(m->prefix, sp);
            have |= 1;
        }
        else if (strcmp(line, "kind") == 0) {
            for (i = 0; i <= PIB_DKIND_SELF; i++) {
                if (strcmp(sp, pib_dkind_names[i]) == 0) {
                    break;
                }
            }
            if ((have & 2) || i > PIB_DKIND_SELF) {
                return -1;
            }
            m->kind = (pib_dkind)i;
            have |= 2;
        }
        else if (strcmp(line, "created") == 0) {
            char *e;
            long long v = strtoll(sp, &e, 10);

            if ((have & 4) || *e != '\0' || e == sp) {
                return -1;
            }
            m->created = v;
            have |= 4;
        }
        else if (strcmp(line, "ratio") == 0) {
            char *e;
            double v = strtod(sp, &e);

            if ((have & 8) || *e != '\0' || e == sp || !(v >= 0)) {
                return -1;
            }
            m->ratio = v;
            have |= 8;
        }
        /* other keys: a later version's, ignored */
    }
    if (at >= n || have != 15) {
        return -1;
    }
    *body = at + 1;
    return 0;
}

/* ---- files ----------------------------------------------------------------- */

static int pib_dstore_path(char *out, size_t cap, const char *root,
                           const char *name, const char *ext)
{
    int n = snprintf(out, cap, "%s/%s%s", root, name, ext);

    return n > 0 && (size_t)n < cap ? 0 : -1;
}

static int pib_write_all(int fd, const void *p, size_t n)
{
    const char *c = p;

    while (n > 0) {
        ssize_t w = write(fd, c, n);

        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            return -1;
        }
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Writes parts to a temporary file in root, then renames it to path. */
static int pib_dstore_atomic(const char *root, const char *path,
                             const void *a, size_t na,
                             const void *b, size_t nb)
{
    char tmp[4096];
    int fd, saved;

    if (pib_dstore_path(tmp, sizeof(tmp), root, ".tmp-XXXXXX", "") != 0
        || (fd = mkstemp(tmp)) < 0) {
        return -1;
    }
    if (fchmod(fd, 0640) != 0 || pib_write_all(fd, a, na) != 0
        || (nb > 0 && pib_write_all(fd, b, nb) != 0)) {
        saved = errno;
        close(fd);
        unlink(tmp);
        errno = saved;
        return -1;
    }
    if (close(fd) != 0 || rename(tmp, path) != 0) {
        saved = errno;
        unlink(tmp);
        errno = saved;
        return -1;
    }
    return 0;
}

int pib_dstore_put(const char *root, const unsigned char *hash,
                   const pib_dmeta *m, const unsigned char *bytes, size_t n)
{
    char hex[PIB_SF_HEX_LEN + 1], path[4096], head[PIB_DSTORE_PREFIX_MAX
                                                   + 128];
    size_t hn = pib_dmeta_format(m, head, sizeof(head));

    pib_sf_hex(hash, hex);
    if (hn == 0 || n == 0
        || pib_dstore_path(path, sizeof(path), root, hex, ".dict") != 0) {
        errno = EINVAL;
        return -1;
    }
    return pib_dstore_atomic(root, path, head, hn, bytes, n);
}

/* Reads a whole file of at most max bytes (0 on success). */
static int pib_read_file(const char *path, size_t max, unsigned char **out,
                         size_t *n)
{
    struct stat st;
    unsigned char *buf;
    size_t got = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    *out = NULL;
    if (fd < 0) {
        return -1;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0
        || (unsigned long long)st.st_size > max
        || (buf = malloc((size_t)st.st_size)) == NULL) {
        close(fd);
        return -1;
    }
    while (got < (size_t)st.st_size) {
        ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);

        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            break;
        }
        got += (size_t)r;
    }
    close(fd);
    if (got != (size_t)st.st_size) {
        free(buf);
        return -1;
    }
    *out = buf;
    *n = got;
    return 0;
}

int pib_dstore_get(const char *root, const unsigned char *hash,
                   size_t max, unsigned char **bytes, size_t *n,
                   pib_dmeta *m)
{
    char hex[PIB_SF_HEX_LEN + 1], path[4096];
    unsigned char *buf;
    size_t len, body;

    *bytes = NULL;
    *n = 0;
    pib_sf_hex(hash, hex);
    if (pib_dstore_path(path, sizeof(path), root, hex, ".dict") != 0
        || pib_read_file(path, max + PIB_DSTORE_PREFIX_MAX + 128, &buf,
                         &len) != 0) {
        return -1;
    }
    if (pib_dmeta_parse(buf, len, m, &body) != 0 || body >= len
        || len - body > max) {
        free(buf);
        return -1;
    }
    memmove(buf, buf + body, len - body);
    *bytes = buf;
    *n = len - body;
    return 0;
}

void pib_dstore_prefix_id(const char *prefix, char out[17])
{
    unsigned char h[PIB_DCZ_HASH_LEN];
    char hex[PIB_SF_HEX_LEN + 1];

    if (pib_sha256((const unsigned char *)prefix, strlen(prefix), h) != 0) {
        memset(h, 0, sizeof(h));
    }
    pib_sf_hex(h, hex);
    memcpy(out, hex, 16);
    out[16] = '\0';
}

int pib_dstore_set_current(const char *root, const char *prefix,
                           const unsigned char *hash)
{
    char id[17], path[4096], hex[PIB_SF_HEX_LEN + 2];

    pib_dstore_prefix_id(prefix, id);
    pib_sf_hex(hash, hex);
    hex[PIB_SF_HEX_LEN] = '\n';
    if (pib_dstore_path(path, sizeof(path), root, id, ".cur") != 0) {
        return -1;
    }
    return pib_dstore_atomic(root, path, hex, PIB_SF_HEX_LEN + 1, NULL, 0);
}

int pib_dstore_current(const char *root, const char *prefix,
                       unsigned char *hash)
{
    char id[17], path[4096];
    unsigned char *buf;
    size_t n;
    int rc;

    pib_dstore_prefix_id(prefix, id);
    if (pib_dstore_path(path, sizeof(path), root, id, ".cur") != 0
        || pib_read_file(path, 128, &buf, &n) != 0) {
        return -1;
    }
    if (n == PIB_SF_HEX_LEN + 1 && buf[PIB_SF_HEX_LEN] == '\n') {
        buf[PIB_SF_HEX_LEN] = '\0';
        rc = pib_sf_parse_hex((const char *)buf, hash);
    }
    else {
        rc = -1;
    }
    free(buf);
    return rc;
}

int pib_dstore_touch(const char *root, const unsigned char *hash)
{
    char hex[PIB_SF_HEX_LEN + 1], path[4096];

    pib_sf_hex(hash, hex);
    if (pib_dstore_path(path, sizeof(path), root, hex, ".dict") != 0) {
        return -1;
    }
    return utimensat(AT_FDCWD, path, NULL, 0);
}

/* ---- pruning --------------------------------------------------------------- */

static int pib_is_name(const char *d, const char *ext, size_t hexlen)
{
    size_t i;

    if (strlen(d) != hexlen + strlen(ext) || strcmp(d + hexlen, ext) != 0) {
        return 0;
    }
    for (i = 0; i < hexlen; i++) {
        if (!((d[i] >= '0' && d[i] <= '9') || (d[i] >= 'a' && d[i] <= 'f'))) {
            return 0;
        }
    }
    return 1;
}

/* The created time from a file's first bytes; -1 when not ours. */
static long long pib_dstore_created(const char *path)
{
    unsigned char buf[PIB_DSTORE_PREFIX_MAX + 128];
    pib_dmeta m;
    size_t body;
    ssize_t n;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0) {
        return -1;
    }
    n = read(fd, buf, sizeof(buf));
    close(fd);
    if (n <= 0 || pib_dmeta_parse(buf, (size_t)n, &m, &body) != 0) {
        return -1;
    }
    return m.created;
}

long pib_dstore_prune(const char *root, unsigned long long limit,
                      long long now, long long lifetime,
                      unsigned long *held, unsigned long long *total)
{
    DIR *dir = opendir(root);
    struct dirent *de;
    pib_dstore_ent *e = NULL;
    char (*cur)[PIB_SF_HEX_LEN + 1] = NULL;
    size_t n = 0, cap = 0, ncur = 0, capcur = 0, i, j;
    long removed = 0;

    *held = 0;
    *total = 0;
    if (dir == NULL) {
        return -1;
    }
    while ((de = readdir(dir)) != NULL) {
        char path[4096];
        struct stat st;

        if (pib_dstore_path(path, sizeof(path), root, de->d_name, "") != 0) {
            continue;
        }
        if (pib_is_name(de->d_name, ".cur", 16)) {
            unsigned char *buf;
            size_t len;

            if (ncur == capcur) {
                void *nc = realloc(cur, (capcur = capcur * 2 + 8)
                                        * sizeof(*cur));
                if (nc == NULL) break;
                cur = nc;
            }
            if (pib_read_file(path, 128, &buf, &len) == 0) {
                if (len == PIB_SF_HEX_LEN + 1) {
                    memcpy(cur[ncur], buf, PIB_SF_HEX_LEN);
                    cur[ncur++][PIB_SF_HEX_LEN] = '\0';
                }
                free(buf);
            }
            continue;
        }
        if (!pib_is_name(de->d_name, ".dict", PIB_SF_HEX_LEN)
            || stat(path, &st) != 0) {
            continue;
        }
        if (n == cap) {
            void *ne = realloc(e, (cap = cap * 2 + 16) * sizeof(*e));
            if (ne == NULL) break;
            e = ne;
        }
        memset(&e[n], 0, sizeof(e[n]));
        memcpy(e[n].hex, de->d_name, PIB_SF_HEX_LEN);
        e[n].size = (unsigned long long)st.st_size;
        e[n].used = (long long)st.st_mtime;
        e[n].created = pib_dstore_created(path);
        if (e[n].created < 0) {
            e[n].created = (long long)st.st_mtime;
        }
        n++;
    }
    closedir(dir);
    for (i = 0; i < n; i++) {
        for (j = 0; j < ncur; j++) {
            if (strcmp(e[i].hex, cur[j]) == 0) {
                e[i].current = 1;
            }
        }
    }
    pib_dstore_victims(e, n, limit, now, lifetime);
    for (i = 0; i < n; i++) {
        char path[4096];

        if (e[i].evict
            && pib_dstore_path(path, sizeof(path), root, e[i].hex,
                               ".dict") == 0
            && (unlink(path) == 0 || errno == ENOENT)) {
            removed++;
        }
        else if (!e[i].evict) {
            (*held)++;
            *total += e[i].size;
        }
    }
    free(e);
    free(cur);
    return removed;
}
