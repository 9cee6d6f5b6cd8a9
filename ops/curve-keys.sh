#!/bin/sh
# Makes a deployment's CURVE keys at install time (never commit them), with `tally` on the PATH:
#   DIR/keys/NAME.key_secret  mode 0600: each stays with the process it names (TALLY_CURVE_KEY)
#   DIR/keys/NAME.key         public: hand out freely
#   DIR/allowed/*.key         the allowlist the gateway and the notifier read (TALLY_CURVE_ALLOW)
# Keys: gateway and notifier (servers; the notifier is also a client and the alerts worker),
# worker-<service> for each SERVICE (may serve only that service, and publish events),
# client (tally call, health checks) and watch (tally watch: client and subscriber).
# Usage: curve-keys.sh DIR [SERVICE...]   (default: every worker service)
# See docs/security.md (Transport security) and ops/README.md (CURVE keys).
set -eu
dir=${1:?usage: curve-keys.sh DIR [SERVICE...]}
shift
services=${*:-calc currency accounts shopping roster identity}
keys="$dir/keys"
tally keys generate gateway --dir "$keys"
tally keys generate notifier --role client --role worker --service alerts --dir "$keys"
for service in $services; do
    tally keys generate "worker-$service" --role worker --service "$service" --dir "$keys"
done
tally keys generate client --role client --dir "$keys"
tally keys generate watch --role client --role subscriber --dir "$keys"
mkdir -p "$dir/allowed"
for file in "$keys"/*.key; do
    # The gateway's key is a server's only; every other public key is allowed.
    [ "$(basename "$file")" = gateway.key ] || cp "$file" "$dir/allowed/"
done
echo "allowlist: $dir/allowed ($(ls "$dir/allowed" | tr '\n' ' '))"
