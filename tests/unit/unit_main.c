/* unit_main.c -- runs every unit suite; exit status 1 on any failure. */
#include "unit.h"

int unit_passed, unit_failed;

void unit_buf_emit(void *ctx, const char *s, size_t n)
{
    unit_buf *b = ctx;

    if (b->len + n < sizeof(b->data)) {
        memcpy(b->data + b->len, s, n);
        b->len += n;
        b->data[b->len] = '\0';
    }
}

int main(void)
{
    test_score();
    test_sensor();
    test_power();
    test_energy();
    test_render();
    test_render_snap();
    test_ae();
    test_cachekey();
    test_decide();
    test_codec();
    test_codec_zb();
    test_codings();
    test_adapt();
    test_slot();
    test_hist();
    test_connect();
    test_claim();
    test_num();
    test_thermal();
    test_member();
    test_mstate();
    test_api();
    test_agent();
    test_fate();
    test_event();
    test_dcz();
    test_sf();
    test_dstore();
    test_dbuild();
    test_dcache();
    test_dpolicy();
    printf("%d passed, %d failed\n", unit_passed, unit_failed);
    return unit_failed ? 1 : 0;
}
