#!/bin/sh
# Runs a command with a Secret Service available, so keychain tests use the real OS keychain.
# If a session bus is already there (a desktop session), the command runs as it is. Otherwise a
# private D-Bus session is started with gnome-keyring unlocked by a throwaway password.
set -e
if [ -n "${DBUS_SESSION_BUS_ADDRESS:-}" ] || ! command -v dbus-run-session >/dev/null 2>&1; then
  exec "$@"
fi
export TREASURY_DESK_KEYRING_WRAPPED=1
exec dbus-run-session -- sh -c 'echo -n treasury-desk-test | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1; exec "$@"' sh "$@"
