/* test_control.c - the control FIFO's command parser (control.c). */
#include <string.h>
#include "testhelp.h"
#include "control.h"

static int parse(const char *line, struct sim_ctl *c, char *err)
{
    return sim_ctl_parse(line, c, err, 128);
}

int main(void)
{
    static const struct {
        const char *line;
        int rc;
        enum sim_ctl_verb verb;
        const char *node;
    } good[] = {
        { "hang s1", 0, SIM_CTL_HANG, "s1" },
        { "answer s1", 0, SIM_CTL_ANSWER, "s1" },
        { "down pi-hot.2", 0, SIM_CTL_DOWN, "pi-hot.2" },
        { "up *", 0, SIM_CTL_UP, "*" },
        { "  hang\tn_3 \r", 0, SIM_CTL_HANG, "n_3" },
        { "", 1, SIM_CTL_HANG, NULL },
        { "   ", 1, SIM_CTL_HANG, NULL },
        { "# hang s1", 1, SIM_CTL_HANG, NULL },
    };
    static const struct {
        const char *line, *msg;
    } bad[] = {
        { "kill s1", "'kill': not a command" },
        { "hangs s1", "'hangs': not a command" },
        { "hang", "hang: wants one node name" },
        { "hang s1 s2", "hang: wants one node name" },
        { "up s1/x", "up: 's1/x' is not a node name" },
        { "down **", "down: '**' is not a node name" },
        { "hang 0123456789012345678901234567890123",
          "hang: node name longer than 31 bytes" },
    };
    struct sim_ctl c;
    char err[128];
    size_t i;

    for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        int rc;

        memset(&c, 0, sizeof(c));
        rc = parse(good[i].line, &c, err);
        CHECK(rc == good[i].rc, good[i].line);
        if (rc == 0)
            CHECK(c.verb == good[i].verb && strcmp(c.node, good[i].node) == 0,
                  good[i].line);
    }
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        CHECK(parse(bad[i].line, &c, err) == -1
              && strncmp(err, bad[i].msg, strlen(bad[i].msg)) == 0,
              bad[i].line);
    }
    CHECK(strcmp(sim_ctl_word(SIM_CTL_ANSWER), "answer") == 0, "word");
    /* a 31-byte name is the longest the scenario allows: accepted */
    CHECK(parse("down 0123456789012345678901234567890", &c, err) == 0
          && strlen(c.node) == 31, "31-byte name");
    return test_report();
}
