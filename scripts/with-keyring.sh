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
exec dbus-run-session -- sh -c 'echo -n treasury-desk-test | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1; exec "$@"' sh "$@"
