/* pis_connect.c -- non-blocking connects over a list of addresses (see
 * pis_connect.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pis_connect.h"

int pis_connect_start(const struct addrinfo **next, int *err)
{
    *err = 0;
    while (*next != NULL) {
        const struct addrinfo *ai = *next;
        int fd;

        *next = ai->ai_next;
        fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK
                    | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            *err = errno;              /* e.g. no IPv6 on this machine */
            continue;
        }
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0
            || errno == EINPROGRESS) {
            return fd;
        }
        *err = errno;
        close(fd);
    }
    return -1;
}

int pis_connect_result(int fd)
{
    int err = 0;
    socklen_t len = sizeof(err);

    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) {
        return errno ? errno : EIO;
    }
    return err;
}

void pis_host_header(char *buf, size_t len, const char *host,
                     unsigned port)
{
    int v6 = strchr(host, ':') != NULL && host[0] != '[';

    snprintf(buf, len, "%s%s%s:%u", v6 ? "[" : "", host, v6 ? "]" : "",
             port);
}

void pis_local_addr(int fd, char *buf, size_t len)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    const void *a = NULL;

    buf[0] = '\0';
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) != 0) {
        return;
    }
    if (ss.ss_family == AF_INET) {
        a = &((struct sockaddr_in *)&ss)->sin_addr;
    }
    else if (ss.ss_family == AF_INET6) {
        a = &((struct sockaddr_in6 *)&ss)->sin6_addr;
    }
    if (a == NULL || inet_ntop(ss.ss_family, a, buf, (socklen_t)len) == NULL) {
        buf[0] = '\0';
    }
}
