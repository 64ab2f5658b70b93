#!/bin/sh
# Runs a command with a Secret Service available, so keychain tests use a real OS keychain: a
# private D-Bus session with gnome-keyring unlocked by a throwaway password, also on a desktop, so
# tests never write into the analyst's own keychain. Where dbus-run-session is missing (macOS,
# Windows) or this is already the private session, the command runs as it is.
#
# The private bus knows one service, the Secret Service, and starts it on the first call as a
# gnome-keyring daemon over this run's own folder, unlocked. Started that way there is no moment
# when a call can reach another daemon: the bus holds the call until the daemon owns its name, and
# never starts the desktop's stock service (a daemon outside this folder with no unlocked login
# keyring, which answers every keychain write "Secret Service: no result found"). Were the daemon
# ever to end mid-run, the next call starts it again over the same unlocked keyring.
if [ -n "${TREASURY_DESK_KEYRING_WRAPPED:-}" ] || ! command -v dbus-run-session >/dev/null 2>&1; then
  exec "$@"
fi
export TREASURY_DESK_KEYRING_WRAPPED=1
# The daemon keeps its keyring files and control socket in a folder of its own, so runs side by side
# (several suites, or a second checkout on the same machine) never share or replace one daemon.
dir=$(mktemp -d "${TMPDIR:-/tmp}/td-keyring.XXXXXX")
trap 'rm -rf "$dir"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir -p "$dir/data" "$dir/run" "$dir/services"
chmod 700 "$dir/run"

cat >"$dir/keyring-daemon.sh" <<EOF
#!/bin/sh
export XDG_DATA_HOME='$dir/data' XDG_RUNTIME_DIR='$dir/run'
printf %s treasury-desk-test | exec gnome-keyring-daemon --unlock --foreground --components=secrets
EOF
cat >"$dir/services/org.freedesktop.secrets.service" <<EOF
[D-BUS Service]
Name=org.freedesktop.secrets
Exec=/bin/sh $dir/keyring-daemon.sh
EOF
cat >"$dir/bus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <keep_umask/>
  <listen>unix:tmpdir=$dir</listen>
  <auth>EXTERNAL</auth>
  <servicedir>$dir/services</servicedir>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
  <limit name="service_start_timeout">60000</limit>
</busconfig>
EOF

# Inside the session, nothing runs until the default collection answers unlocked (the first call
# starts the daemon).
dbus-run-session --config-file="$dir/bus.conf" -- sh -c '
  secret() { dbus-send --session --print-reply --dest=org.freedesktop.secrets "$@" 2>/dev/null; }
  tries=0
  while :; do
    collection=$(secret /org/freedesktop/secrets org.freedesktop.Secret.Service.ReadAlias string:default \
      | sed -n "s/.*object path \"\(.*\)\"/\1/p")
    if [ -n "$collection" ] && [ "$collection" != "/" ] && secret "$collection" \
        org.freedesktop.DBus.Properties.Get string:org.freedesktop.Secret.Collection string:Locked \
        | grep -q "boolean false"; then
      break
    fi
    tries=$((tries + 1))
    if [ $tries -ge 200 ]; then
      echo "with-keyring: gnome-keyring offered no unlocked default collection within 10 s" >&2
      exit 1
    fi
    sleep 0.05
  done
  exec "$@"' sh "$@"
