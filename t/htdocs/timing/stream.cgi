#!/bin/sh
# A streamed CGI response (t/pibalance/streams.t): the headers at once,
# then a line every 0.5 s for 4 s; with the query string "short", one line
# at once.  /bin/sh: it starts in a few ms, like the pages it is compared
# with.
printf 'Content-Type: text/plain\r\n\r\n'
if [ "$QUERY_STRING" = short ]; then
    echo short
    exit 0
fi
for i in 1 2 3 4 5 6 7 8; do
    echo "line $i"
    sleep 0.5
done
