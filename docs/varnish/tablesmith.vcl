# Varnish in front of Tablesmith nodes, purged by surrogate key
# (docs/edge-cache.md, "An HTTP cache in front"). Needs the xkey vmod
# (Debian: apt-get install varnish varnish-modules). Point every node's
# purge_url at this Varnish:
#
#     tablesmith {
#         purge_url http://varnish.internal:6081/
#     }
#
# and send clients to Varnish. It stores what Tablesmith marks public
# (anonymous reads of tables with a cache max_age: Cache-Control public,
# max-age=N), indexed by the Surrogate-Key header; a node that makes a
# write sends PURGE with the keys it made stale.
vcl 4.1;

import xkey;

backend tablesmith {
	.host = "127.0.0.1";
	.port = "8080";
}

# Who may purge: the Tablesmith nodes. Everyone else gets 403.
acl purgers {
	"127.0.0.1";
	"::1";
}

sub vcl_recv {
	if (req.method == "PURGE") {
		if (client.ip !~ purgers) {
			return (synth(403, "Forbidden"));
		}
		if (!req.http.Surrogate-Key) {
			return (synth(400, "PURGE needs a Surrogate-Key header"));
		}
		set req.http.n-gone = xkey.purge(req.http.Surrogate-Key);
		return (synth(200, "Purged " + req.http.n-gone));
	}
	# Only the generated APIs are shared; the dashboard, the platform API
	# and the realtime stream go straight through. Requests with an
	# Authorization header are passed by Varnish's built-in rules.
	if (req.url !~ "^/v1/" || req.url ~ "^/v1/[^/]+/realtime") {
		return (pass);
	}
}

sub vcl_backend_response {
	# xkey indexes the xkey header; Tablesmith names the keys in
	# Surrogate-Key (", " between them, which xkey also splits on).
	if (beresp.http.Surrogate-Key) {
		set beresp.http.xkey = beresp.http.Surrogate-Key;
	}
	# Stream exports instead of buffering them whole.
	if (bereq.url ~ "/export") {
		set beresp.do_stream = true;
	}
}

sub vcl_deliver {
	unset resp.http.xkey;
	if (obj.hits > 0) {
		set resp.http.X-Cache = "HIT";
	} else {
		set resp.http.X-Cache = "MISS";
	}
}
