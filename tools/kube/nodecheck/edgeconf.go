package main

// edgeConf is the host nginx in front of the single-node cluster: the bounds, headers and error
// envelopes of the local stack's edge (tools/devstack/nginx.conf.tmpl) and of the chart's
// ingress-nginx annotations, with the upstreams on the bridge address (NodePorts).
const edgeConf = `# Written by tools/kube/nodecheck edge from the installed Ingress objects. Do not edit.
worker_processes 1;
pid {{.Vars.Dir}}/nginx.pid;
error_log {{.Vars.Dir}}/error.log warn;

events {
    worker_connections 1024;
}

http {
    server_tokens off;
    charset utf-8;
    default_type application/json;
    keepalive_timeout 65s;
    client_body_temp_path {{.Vars.Dir}}/tmp/body;
    proxy_temp_path {{.Vars.Dir}}/tmp/proxy;
    fastcgi_temp_path {{.Vars.Dir}}/tmp/fastcgi;
    uwsgi_temp_path {{.Vars.Dir}}/tmp/uwsgi;
    scgi_temp_path {{.Vars.Dir}}/tmp/scgi;

    gzip on;
    gzip_comp_level 5;
    gzip_min_length 1024;
    gzip_proxied any;
    gzip_vary on;
    gzip_types application/json application/problem+json text/csv application/javascript text/css;

    client_max_body_size 1m;
    client_body_buffer_size 1m;
    client_header_timeout 10s;
    client_body_timeout 10s;

    # nginx.ingress.kubernetes.io/limit-connections of the chart's Ingress; the addresses of its
    # limit-whitelist are not counted (an empty key).
    geo $conn_limit_exempt {
        default 0;
{{- range .Exempt}}
        {{.}} 1;
{{- end}}
    }
    map $conn_limit_exempt $conn_limit_key {
        0 $binary_remote_addr;
        1 "";
    }
    limit_conn_zone $conn_limit_key zone=per_address:1m;
    limit_conn_status 429;
    limit_conn_log_level warn;

    # The hosts the certificate names are the only ones the redirect to HTTPS may name: the Host
    # header is the client's to write, and redirecting to whatever it says lets a crafted link
    # (or a cache in front) send browsers elsewhere. Any other host is 421.
    map $host $https_host {
        localhost localhost;
        127.0.0.1 127.0.0.1;
        default "";
    }

    map $http_x_request_id $req_id {
        default $request_id;
        "~^[A-Za-z0-9._:-]{1,64}$" $http_x_request_id;
    }
    log_format json escape=json '{"time":"$time_iso8601","request_id":"$req_id","remote_addr":"$remote_addr",'
        '"method":"$request_method","path":"$uri","status":$status,"duration":$request_time,'
        '"upstream":"$upstream_addr","upstream_status":"$upstream_status"}';
    access_log {{.Vars.Dir}}/access.log json;

    proxy_http_version 1.1;
    proxy_set_header Connection "";
    proxy_set_header Host $host;
    proxy_set_header X-Forwarded-For $remote_addr;
    proxy_set_header X-Real-IP $remote_addr;
    proxy_set_header X-Forwarded-Proto https;
    proxy_set_header X-Request-Id $req_id;
    proxy_connect_timeout 2s;
    proxy_send_timeout 60s;
    proxy_read_timeout 120s;
    proxy_max_temp_file_size 0;
    proxy_hide_header Strict-Transport-Security;
    # A refused or reset connection (a pod kube-proxy has not yet forgotten) goes to the next
    # try, which kube-proxy balances again; idle upstream connections close before a draining
    # pod closes them (HTTP_DRAIN_DELAY), so a request is never sent on a closing connection.
    proxy_next_upstream error timeout;
    proxy_next_upstream_tries 3;
    proxy_next_upstream_timeout 10s;
{{range $svc, $port := .Upstreams}}
    upstream {{$svc}} {
        server {{$.BridgeAddr}}:{{$port}} max_fails=0;
        server {{$.BridgeAddr}}:{{$port}} max_fails=0 backup;
        keepalive 16;
        keepalive_timeout 500ms;
    }
{{- end}}

    server {
        listen {{.Vars.HTTPAddr}} default_server;
        server_name _;
{{- template "errors"}}
        location / {
            if ($https_host = "") {
                return 421 '{"ok":false,"error":"this server does not answer for that host","code":"misdirected_request"}\n';
            }
            return 308 https://$https_host:{{.Vars.HTTPSPort}}$request_uri;
        }
    }

    server {
        listen {{.Vars.HTTPSAddr}} ssl http2 default_server;
        server_name _;
        ssl_certificate {{.Vars.Cert}};
        ssl_certificate_key {{.Vars.Key}};
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_session_cache shared:TLS:1m;

        add_header Strict-Transport-Security "max-age=31536000; includeSubDomains" always;
        add_header X-Request-Id $req_id always;
        limit_conn per_address {{.ConnLimit}};

{{- template "errors"}}
        # The e2e suite's readiness check of the edge itself.
        location = /api/_ingress {
            return 200 '{"ok":true}\n';
        }
{{range .Locations}}
        location {{.Match}} {
            proxy_pass http://{{.Upstream}}{{.URI}};
        }
{{- end}}
        location /api/ {
            return 404 '{"ok":false,"error":"no route","code":"not_found"}\n';
        }
        location / {
{{- if .Root}}
            proxy_pass http://{{.Root}};
{{- else}}
            return 404 '{"ok":false,"error":"no route","code":"not_found"}\n';
{{- end}}
        }
    }
}
{{- define "errors"}}

        # As on the local stack's edge (tools/devstack/nginx.conf.tmpl), errors nginx itself produces get the API envelope, never its HTML page: a request it
        # cannot parse (a NUL in the path, a bad header), a request line or headers too large, a
        # method or transfer coding it will not pass on, plain HTTP on the HTTPS port. The pages
        # are internal URIs, not named locations: a request whose line did not parse has no URI,
        # and nginx redirects that only to a URI. The status stays the error's, except where "="
        # says otherwise. Upstream error responses are not intercepted: services already answer
        # with their own envelopes. Each page lifts the body limit, which the redirect checks again.
        error_page 400 /_edge/bad_request;
        error_page 405 /_edge/method_not_allowed;
        error_page 411 /_edge/length_required;
        error_page 413 /_edge/body_too_large;
        error_page 414 /_edge/uri_too_long;
        error_page 429 /_edge/too_many_connections;
        error_page 494 =431 /_edge/header_too_large;
        error_page 497 =400 /_edge/https_required;
        error_page 500 /_edge/internal;
        error_page 501 /_edge/not_implemented;
        error_page 502 503 =503 /_edge/unavailable;
        error_page 504 /_edge/timeout;
        error_page 505 /_edge/version_not_supported;
        location = /_edge/bad_request {
            internal;
            client_max_body_size 0;
            return 400 '{"ok":false,"error":"the request could not be parsed (request line, path or a header)","code":"bad_request"}\n';
        }
        location = /_edge/method_not_allowed {
            internal;
            client_max_body_size 0;
            return 405 '{"ok":false,"error":"method not allowed","code":"method_not_allowed"}\n';
        }
        location = /_edge/length_required {
            internal;
            client_max_body_size 0;
            return 411 '{"ok":false,"error":"a body needs Content-Length or chunked Transfer-Encoding","code":"length_required"}\n';
        }
        location = /_edge/body_too_large {
            internal;
            client_max_body_size 0;
            return 413 '{"ok":false,"error":"request body exceeds 1 MiB","code":"body_too_large"}\n';
        }
        location = /_edge/uri_too_long {
            internal;
            client_max_body_size 0;
            return 414 '{"ok":false,"error":"the request line is too long","code":"uri_too_long"}\n';
        }
        location = /_edge/too_many_connections {
            internal;
            client_max_body_size 0;
            return 429 '{"ok":false,"error":"too many connections from this address","code":"too_many_connections"}\n';
        }
        location = /_edge/header_too_large {
            internal;
            client_max_body_size 0;
            return 431 '{"ok":false,"error":"a request header or all of them together are too large","code":"header_too_large"}\n';
        }
        location = /_edge/https_required {
            internal;
            client_max_body_size 0;
            return 400 '{"ok":false,"error":"plain HTTP was sent to the HTTPS port","code":"https_required"}\n';
        }
        location = /_edge/internal {
            internal;
            client_max_body_size 0;
            return 500 '{"ok":false,"error":"internal error","code":"internal"}\n';
        }
        location = /_edge/not_implemented {
            internal;
            client_max_body_size 0;
            return 501 '{"ok":false,"error":"the request uses a method or transfer coding this server does not implement","code":"not_implemented"}\n';
        }
        location = /_edge/unavailable {
            internal;
            client_max_body_size 0;
            add_header Strict-Transport-Security "max-age=31536000; includeSubDomains" always;
            add_header X-Request-Id $req_id always;
            add_header Retry-After 1 always;
            return 503 '{"ok":false,"error":"service unavailable","code":"unavailable"}\n';
        }
        location = /_edge/timeout {
            internal;
            client_max_body_size 0;
            return 504 '{"ok":false,"error":"service timed out","code":"unavailable"}\n';
        }
        location = /_edge/version_not_supported {
            internal;
            client_max_body_size 0;
            return 505 '{"ok":false,"error":"HTTP version not supported","code":"http_version_not_supported"}\n';
        }
{{- end}}
`
