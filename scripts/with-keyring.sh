#!/bin/sh
# Runs a command with a Secret Service available, so keychain tests use a real OS keychain: a
# private D-Bus session with gnome-keyring unlocked by a throwaway password, also on a desktop, so
# tests never write into the analyst's own keychain. Where dbus-run-session is missing (macOS,
# Windows) or this is already the private session, the command runs as it is.
set -e
if [ -n "${TREASURY_DESK_KEYRING_WRAPPED:-}" ] || ! command -v dbus-run-session >/dev/null 2>&1; then
  exec "$@"
fi
export TREASURY_DESK_KEYRING_WRAPPED=1
# The daemon keeps its keyring files and control socket in a folder of its own, so runs side by side
# (several suites, or a second checkout on the same machine) never share or replace one daemon.
exec dbus-run-session -- sh -c '
  dir=$(mktemp -d "${TMPDIR:-/tmp}/td-keyring.XXXXXX")
  mkdir -p "$dir/data" "$dir/run" && chmod 700 "$dir/run"
  echo -n treasury-desk-test | XDG_DATA_HOME="$dir/data" XDG_RUNTIME_DIR="$dir/run" \
    gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1
  status=0
  "$@" || status=$?
  rm -rf "$dir"
  exit $status' sh "$@"
