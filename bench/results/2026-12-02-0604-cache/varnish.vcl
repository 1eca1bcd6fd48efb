vcl 4.1;
backend node { .host = "127.0.0.1"; .port = "19191"; }
sub vcl_backend_response {
    if (beresp.http.content-type ~ "text/html") {
        set beresp.do_gzip = true;
    }
}
