#!/usr/bin/env bash
# Proves the built control plane works, with exactly the flags README.md
# documents: starts kine (SQLite), kube-apiserver and kube-controller-manager
# on 127.0.0.1 in a temporary directory with certificates made by openssl,
# checks what the tests rely on, and stops everything it started.
#
#   tests/controlplane/build.sh && tests/controlplane/smoke.sh
#
# SMOKE_KEEP=1 keeps the temporary directory (certs, kubeconfigs, logs).
# Needs curl, openssl and python3 (free ports, JSON). Every wait is bounded.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin="$here/../../out/testenv/bin"
for b in kube-apiserver kube-controller-manager kine; do
  [[ -x $bin/$b ]] || { echo "smoke: $bin/$b missing: run tests/controlplane/build.sh" >&2; exit 1; }
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/liken-controlplane.XXXXXX")
pids=()
passed=0
failed=0

stop() {
  local pid
  # Stop in reverse order of start: controller-manager, apiserver, kine.
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    pid=${pids[i]}
    kill -TERM "$pid" 2>/dev/null || continue
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  pids=()
}
cleanup() {
  stop
  if [[ ${SMOKE_KEEP:-} == 1 ]]; then echo "smoke: kept $tmp" >&2; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

logs() {
  local f
  for f in "$tmp"/*.log; do
    echo "----- last lines of $(basename "$f") -----" >&2
    tail -n 25 "$f" >&2
  done
}
fail() { echo "smoke: FAIL: $*" >&2; failed=$((failed + 1)); }
ok() { echo "smoke: ok: $*" >&2; passed=$((passed + 1)); }
die() { echo "smoke: error: $*" >&2; logs; exit 1; }

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# ---------------------------------------------------------------- certificates
pki="$tmp/pki"
mkdir -p "$pki"
ossl() { openssl "$@" 2>>"$tmp/openssl.log"; }
ca() { # ca <name> <CN>
  ossl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
    -keyout "$pki/$1.key" -out "$pki/$1.crt" -subj "/CN=$2"
}
leaf() { # leaf <name> <ca> <subject> <extensions>
  ossl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout "$pki/$1.key" -out "$pki/$1.csr" -subj "$3"
  printf '%b' "$4" >"$pki/$1.ext"
  ossl x509 -req -in "$pki/$1.csr" -CA "$pki/$2.crt" -CAkey "$pki/$2.key" -CAcreateserial \
    -days 1 -out "$pki/$1.crt" -extfile "$pki/$1.ext"
}
client='extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature\n'
ca server-ca liken-server-ca              # signs serving certificates
ca client-ca liken-client-ca              # signs client certificates (--client-ca-file)
ca request-header-ca liken-request-header-ca  # front proxy / aggregation
leaf serving server-ca /CN=kube-apiserver \
  'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,IP:10.43.0.1\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature\n'
leaf admin client-ca "/O=system:masters/CN=system:admin" "$client"
leaf controller-manager client-ca /CN=system:kube-controller-manager "$client"
leaf nobody client-ca /CN=smoke-nobody "$client"
leaf front-proxy request-header-ca /CN=system:auth-proxy "$client"
ossl ecparam -name prime256v1 -genkey -noout -out "$pki/sa.ec.key"
ossl pkcs8 -topk8 -nocrypt -in "$pki/sa.ec.key" -out "$pki/service-account.key"
ossl ec -in "$pki/service-account.key" -pubout -out "$pki/service-account.pub"

kine_port=$(free_port)
api_port=$(free_port)
kcm_port=$(free_port)
server="https://127.0.0.1:$api_port"

kubeconfig() { # kubeconfig <user>
  cat >"$tmp/$1.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: smoke
  cluster:
    server: $server
    certificate-authority: $pki/server-ca.crt
users:
- name: $1
  user:
    client-certificate: $pki/$1.crt
    client-key: $pki/$1.key
contexts:
- name: smoke
  context: {cluster: smoke, user: $1}
current-context: smoke
EOF
}
kubeconfig admin
kubeconfig controller-manager

# ---------------------------------------------------------------------- kine
mkdir -p "$tmp/kine"
kine_flags=(
  --endpoint="sqlite://$tmp/kine/state.db?_journal_mode=WAL&_busy_timeout=30000&_synchronous=NORMAL&_txlock=immediate&_stmt_cache_size=20&cache=shared"
  --listen-address="127.0.0.1:$kine_port"
  --metrics-bind-address=0
)
"$bin/kine" "${kine_flags[@]}" >"$tmp/kine.log" 2>&1 &
pids+=($!)

for _ in $(seq 1 100); do
  grep -q 'Kine available at' "$tmp/kine.log" && break
  kill -0 "${pids[0]}" 2>/dev/null || die "kine exited"
  sleep 0.1
done
grep -q 'Kine available at' "$tmp/kine.log" || die "kine not listening after 10s"

# ------------------------------------------------------------ kube-apiserver
apiserver_flags=(
  --etcd-servers="http://127.0.0.1:$kine_port"
  --bind-address=127.0.0.1
  --advertise-address=127.0.0.1
  --secure-port="$api_port"
  --endpoint-reconciler-type=none
  --tls-cert-file="$pki/serving.crt"
  --tls-private-key-file="$pki/serving.key"
  --client-ca-file="$pki/client-ca.crt"
  --anonymous-auth=false
  --authorization-mode=Node,RBAC
  --enable-admission-plugins=NodeRestriction
  --service-account-issuer=https://kubernetes.default.svc.cluster.local
  --service-account-key-file="$pki/service-account.pub"
  --service-account-signing-key-file="$pki/service-account.key"
  --service-cluster-ip-range=10.43.0.0/16
  --allow-privileged=true
  --requestheader-client-ca-file="$pki/request-header-ca.crt"
  --requestheader-allowed-names=system:auth-proxy
  --requestheader-username-headers=X-Remote-User
  --requestheader-group-headers=X-Remote-Group
  --requestheader-extra-headers-prefix=X-Remote-Extra-
  --proxy-client-cert-file="$pki/front-proxy.crt"
  --proxy-client-key-file="$pki/front-proxy.key"
  --runtime-config=resource.k8s.io/v1=true
  --profiling=false
)
"$bin/kube-apiserver" "${apiserver_flags[@]}" >"$tmp/kube-apiserver.log" 2>&1 &
pids+=($!)

as() { # as <user> <curl args...>: a request to the apiserver as a client-cert user
  local user=$1
  shift
  curl -sS --max-time 10 --cacert "$pki/server-ca.crt" --cert "$pki/$user.crt" --key "$pki/$user.key" "$@"
}
api() { as admin -H 'Content-Type: application/json' "$@"; }
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))" "$1"; }

t0=$SECONDS
ready=
for _ in $(seq 1 120); do
  kill -0 "${pids[1]}" 2>/dev/null || die "kube-apiserver exited"
  if [[ $(as admin "$server/readyz" 2>/dev/null) == ok ]]; then ready=1; break; fi
  sleep 0.5
done
[[ -n $ready ]] || die "kube-apiserver not ready after 60s"
ok "kube-apiserver /readyz ok after $((SECONDS - t0))s"

# ---------------------------------------------------- kube-controller-manager
mkdir -p "$tmp/controller-manager/flexvolume"
controller_manager_flags=(
  --kubeconfig="$tmp/controller-manager.kubeconfig"
  --authentication-kubeconfig="$tmp/controller-manager.kubeconfig"
  --authorization-kubeconfig="$tmp/controller-manager.kubeconfig"
  --bind-address=127.0.0.1
  --secure-port="$kcm_port"
  --flex-volume-plugin-dir="$tmp/controller-manager/flexvolume"
  --leader-elect=false
  --use-service-account-credentials=true
  --service-account-private-key-file="$pki/service-account.key"
  --root-ca-file="$pki/server-ca.crt"
  --cluster-signing-cert-file="$pki/client-ca.crt"
  --cluster-signing-key-file="$pki/client-ca.key"
  --controllers=*
)
"$bin/kube-controller-manager" "${controller_manager_flags[@]}" >"$tmp/kube-controller-manager.log" 2>&1 &
pids+=($!)

t0=$SECONDS
healthy=
for _ in $(seq 1 60); do
  kill -0 "${pids[2]}" 2>/dev/null || die "kube-controller-manager exited"
  # kube-controller-manager serves /healthz to anyone (--authorization-always-allow-paths).
  if [[ $(curl -sk --max-time 5 "https://127.0.0.1:$kcm_port/healthz" 2>/dev/null) == ok ]]; then healthy=1; break; fi
  sleep 0.5
done
[[ -n $healthy ]] || die "kube-controller-manager not healthy after 30s"
ok "kube-controller-manager /healthz ok after $((SECONDS - t0))s"

# ------------------------------------------------------------------- checks
want_version=$("$bin/kube-apiserver" --version | awk '{print $2}')
got=$(api "$server/version" | json 'd["gitVersion"]')
[[ $got == "$want_version" ]] && ok "/version is $got" || fail "/version is '$got', want $want_version"

code=$(curl -s -o /dev/null -w '%{http_code}' --cacert "$pki/server-ca.crt" "$server/api/v1/namespaces")
[[ $code == 401 ]] && ok "anonymous request refused (401)" || fail "anonymous request answered $code, want 401"

code=$(as nobody -o /dev/null -w '%{http_code}' "$server/api/v1/namespaces")
[[ $code == 403 ]] && ok "RBAC refuses a user without bindings (403)" || fail "user without bindings got $code, want 403"

res=$(api "$server/apis/resource.k8s.io/v1" | json '",".join(sorted(r["name"] for r in d["resources"]))')
[[ $res == *deviceclasses*resourceclaims*resourceslices* ]] && ok "resource.k8s.io/v1 served ($res)" || fail "resource.k8s.io/v1: $res"

ns=smoke-$RANDOM
api -X POST "$server/api/v1/namespaces" -d "{\"metadata\":{\"name\":\"$ns\"}}" >/dev/null

# serviceaccount-controller and root-ca-certificate-publisher-controller.
sa=
for _ in $(seq 1 60); do
  sa=$(api "$server/api/v1/namespaces/$ns/serviceaccounts/default" | json 'd.get("metadata",{}).get("name","")')
  cm=$(api "$server/api/v1/namespaces/$ns/configmaps/kube-root-ca.crt" | json 'd.get("metadata",{}).get("name","")')
  [[ $sa == default && $cm == kube-root-ca.crt ]] && break
  sleep 0.5
done
[[ $sa == default && $cm == kube-root-ca.crt ]] && ok "new namespace got its default ServiceAccount and kube-root-ca.crt" ||
  fail "namespace $ns: serviceaccount '$sa', configmap '$cm'"

# A service-account token minted by the apiserver (signing key, issuer) authenticates.
token=$(api -X POST "$server/api/v1/namespaces/$ns/serviceaccounts/default/token" \
  -d '{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"expirationSeconds":600}}' | json 'd["status"]["token"]')
who=$(curl -sS --max-time 10 --cacert "$pki/server-ca.crt" -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
  -X POST "$server/apis/authentication.k8s.io/v1/selfsubjectreviews" -d '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}' |
  json 'd["status"]["userInfo"]["username"]')
[[ $who == "system:serviceaccount:$ns:default" ]] && ok "service-account token authenticates as $who" || fail "token authenticated as '$who'"

# garbage-collector-controller: deleting the owner deletes its dependent.
uid=$(api -X POST "$server/api/v1/namespaces/$ns/configmaps" -d '{"metadata":{"name":"owner"}}' | json 'd["metadata"]["uid"]')
api -X POST "$server/api/v1/namespaces/$ns/configmaps" \
  -d "{\"metadata\":{\"name\":\"dependent\",\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"name\":\"owner\",\"uid\":\"$uid\"}]}}" >/dev/null
api -X DELETE "$server/api/v1/namespaces/$ns/configmaps/owner" >/dev/null
gone=
for _ in $(seq 1 60); do
  [[ $(as admin -o /dev/null -w '%{http_code}' "$server/api/v1/namespaces/$ns/configmaps/dependent") == 404 ]] && { gone=1; break; }
  sleep 0.5
done
[[ -n $gone ]] && ok "garbage collector deleted the dependent of a deleted owner" || fail "dependent configmap still there after 30s"

# disruption-controller: a PodDisruptionBudget gets its status.
api -X POST "$server/apis/policy/v1/namespaces/$ns/poddisruptionbudgets" \
  -d '{"metadata":{"name":"pdb"},"spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"none"}}}}' >/dev/null
observed=
for _ in $(seq 1 60); do
  observed=$(api "$server/apis/policy/v1/namespaces/$ns/poddisruptionbudgets/pdb" | json 'd.get("status",{}).get("observedGeneration",0)')
  [[ $observed == 1 ]] && break
  sleep 0.5
done
[[ $observed == 1 ]] && ok "disruption controller wrote the PDB's status" || fail "PDB status.observedGeneration is '$observed'"

# namespace-controller: a deleted namespace with content goes away entirely.
api -X DELETE "$server/api/v1/namespaces/$ns" >/dev/null
gone=
for _ in $(seq 1 120); do
  [[ $(as admin -o /dev/null -w '%{http_code}' "$server/api/v1/namespaces/$ns") == 404 ]] && { gone=1; break; }
  sleep 0.5
done
[[ -n $gone ]] && ok "namespace controller finished deleting $ns" || fail "namespace $ns still there after 60s"

t0=$SECONDS
stop
ok "stopped all three in $((SECONDS - t0))s"

(( failed == 0 )) || logs
echo "smoke: $passed passed, $failed failed"
(( failed == 0 ))
