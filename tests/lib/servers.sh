# Real servers on loopback for the remote-cache tests (sourced after
# testlib.sh): redis-server and nginx with its WebDAV module, each on a
# free port of its own, stopped when the test ends.  Never a mock: the
# cache talks to what a build farm runs.
need redis-server redis-cli nginx curl

SERVER_PIDS=()
stop_servers() {
	for p in "${SERVER_PIDS[@]}"; do kill -CONT "$p" 2>/dev/null; kill "$p" 2>/dev/null; done
	for p in "${SERVER_PIDS[@]}"; do wait "$p" 2>/dev/null; done
	SERVER_PIDS=()
}
trap 'stop_servers; [ "${KEEP_T:-0}" = 1 ] || rm -rf "$T"' EXIT

# free_port: a TCP port on 127.0.0.1 nothing listens on now, below the
# kernel's ephemeral range (a port there can be any client's local end --
# redis-cli's, curl's, a parallel test's -- and bind then fails though
# nothing listens).  A server that still finds it taken is started again
# on another (start_redis, start_nginx).
free_port() {
	local p low=32768 _high
	read -r low _high </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || true
	[ "$low" -gt 11024 ] || low=61000
	for _ in $(seq 50); do
		p=$((10000 + RANDOM % (low - 10000)))
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
	done
	fail "no free port"
}

# start_redis [ARGS...]: REDIS_PORT, REDIS_PID.  In a session of its own
# (setsid execs it: REDIS_PID is the server's): tests stop it (SIGSTOP) to
# play a hung server, and a stopped process in the test's own process
# group gets that group SIGHUP when the group is orphaned (as it is under
# setsid or nohup from a shell that has gone).
start_redis() {
	local try
	for try in 1 2 3 4 5; do
		REDIS_PORT=$(free_port)
		setsid redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no \
			--dir "$T" "$@" >"$T/redis.log" 2>&1 &
		REDIS_PID=$!
		SERVER_PIDS+=("$REDIS_PID")
		for _ in $(seq 100); do
			redis-cli -p "$REDIS_PORT" ${REDIS_PASSWORD:+-a "$REDIS_PASSWORD"} --no-auth-warning ping \
				2>/dev/null | grep -q PONG && return
			kill -0 "$REDIS_PID" 2>/dev/null || break
			sleep 0.1
		done
		# (taken between free_port and the bind: another port)
		grep -q "Address already in use" "$T/redis.log" || break
		echo "redis-server: port $REDIS_PORT taken, try $try"
	done
	fail "redis-server did not start: $(tail -5 "$T/redis.log")"
}
rcli() { redis-cli -p "$REDIS_PORT" ${REDIS_PASSWORD:+-a "$REDIS_PASSWORD"} --no-auth-warning "$@"; }

# start_nginx: a WebDAV store at http://127.0.0.1:$NGINX_PORT/cache/,
# files under $T/www/cache; NGINX_PID.  NGINX_LISTEN=[::1] listens on
# IPv6's loopback instead.
start_nginx() {
	NGINX_PORT=$(free_port)
	mkdir -p "$T/nginx" "$T/www/cache"
	cat >"$T/nginx/nginx.conf" <<EOF
daemon off;
master_process off;
pid $T/nginx/nginx.pid;
error_log $T/nginx/error.log;
events {}
http {
	access_log off;
	client_body_temp_path $T/nginx/body;
	proxy_temp_path $T/nginx/proxy;
	fastcgi_temp_path $T/nginx/fastcgi;
	uwsgi_temp_path $T/nginx/uwsgi;
	scgi_temp_path $T/nginx/scgi;
	server {
		listen ${NGINX_LISTEN:-127.0.0.1}:$NGINX_PORT;
		location /cache/ {
			root $T/www;
			dav_methods PUT DELETE;
			create_full_put_path on;
			client_max_body_size 0;
		}
	}
}
EOF
	nginx -p "$T/nginx" -c "$T/nginx/nginx.conf" >"$T/nginx/stdout" 2>&1 &
	NGINX_PID=$!
	SERVER_PIDS+=("$NGINX_PID")
	for _ in $(seq 100); do
		curl -s -o /dev/null "http://${NGINX_LISTEN:-127.0.0.1}:$NGINX_PORT/" && return
		kill -0 "$NGINX_PID" 2>/dev/null || break
		sleep 0.1
	done
	# (taken between free_port and the bind: another port, up to 5 tries)
	if [ "${NGINX_TRY:-1}" -lt 5 ] && grep -qs "Address already in use" "$T/nginx/error.log" "$T/nginx/stdout"; then
		echo "nginx: port $NGINX_PORT taken, try ${NGINX_TRY:-1}"
		rm -f "$T/nginx/error.log" "$T/nginx/stdout"
		NGINX_TRY=$((${NGINX_TRY:-1} + 1)) start_nginx
		return
	fi
	fail "nginx did not start: $(cat "$T/nginx/error.log" "$T/nginx/stdout" 2>/dev/null | tail -5)"
}
