#!/usr/bin/env python3
"""A throw-away PostgreSQL server for the store's tests: `cluster.py start STATE` runs initdb
and pg_ctl from the distribution's `postgresql` package on a unix socket in a fresh
temporary directory and writes STATE (JSON: the connection URL, the directory, the
binaries); `cluster.py stop STATE` stops the server and removes everything.

PostgreSQL refuses to run as root, and CI runs tests as root: then the server runs as the
`postgres` system user the package creates (or `nobody`), through runuser. Missing server
binaries are an error, never a skip: scripts/setup.sh installs them.
"""
import glob
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile

# The test database user, created by initdb as the superuser.
DB_USER = "gpubench"


def find_server_binaries():
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin"),
                        key=lambda path: [int(part) for part in path.split("/")[-2].split(".") if part.isdigit()])
    for directory in reversed(candidates):
        if os.access(os.path.join(directory, "initdb"), os.X_OK) and os.access(os.path.join(directory, "pg_ctl"), os.X_OK):
            return directory
    initdb = shutil.which("initdb")
    if initdb and shutil.which("pg_ctl"):
        return os.path.dirname(initdb)
    sys.exit("cluster.py: PostgreSQL server binaries (initdb, pg_ctl) not found in /usr/lib/postgresql/*/bin or on "
             "PATH: install the distribution's postgresql package (scripts/setup.sh does)")


def server_user():
    """None to run as ourselves; a system user's name when we are root."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            pass
    sys.exit("cluster.py: running as root, and neither a 'postgres' nor a 'nobody' user exists to run the server as")


def as_user(user, command):
    return command if user is None else ["runuser", "-u", user, "--"] + command


def run(command, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        sys.exit(f"cluster.py: {' '.join(command)} failed (exit {result.returncode}):\n{result.stdout}{result.stderr}")
    return result


def start(state_path):
    if os.path.exists(state_path):
        stop(state_path)  # a previous run that did not clean up
    bindir = find_server_binaries()
    user = server_user()
    # Short, under /tmp: a unix socket path must fit in about 100 bytes.
    directory = tempfile.mkdtemp(prefix="gpubench-pg-", dir="/tmp")
    os.chmod(directory, 0o755)
    data = os.path.join(directory, "data")
    log = os.path.join(directory, "server.log")
    if user is not None:
        entry = pwd.getpwnam(user)
        os.chown(directory, entry.pw_uid, entry.pw_gid)
    state = {"directory": directory, "bindir": bindir, "user": user,
             "url": f"postgresql://{DB_USER}@/postgres?host={directory}"}
    with open(state_path, "w", encoding="utf-8") as handle:
        json.dump(state, handle)
    run(as_user(user, [os.path.join(bindir, "initdb"), "-D", data, "-U", DB_USER, "-A", "trust", "-E", "UTF8",
                       "--locale=C", "--no-sync"]))
    # No TCP, a socket in the directory; fsync off: the tests kill clients, never the server.
    options = f"-k {directory} -c listen_addresses='' -c fsync=off -c max_connections=100"
    run(as_user(user, [os.path.join(bindir, "pg_ctl"), "-D", data, "-l", log, "-o", options, "-w", "-t", "120", "start"]))
    print(f"cluster.py: PostgreSQL from {bindir} running as {user or 'this user'} at {state['url']}")


def stop(state_path):
    try:
        with open(state_path, encoding="utf-8") as handle:
            state = json.load(handle)
    except FileNotFoundError:
        return
    data = os.path.join(state["directory"], "data")
    if os.path.exists(os.path.join(data, "postmaster.pid")):
        subprocess.run(as_user(state["user"], [os.path.join(state["bindir"], "pg_ctl"), "-D", data, "-m", "immediate",
                                               "-w", "stop"]), capture_output=True)
    shutil.rmtree(state["directory"], ignore_errors=True)
    os.remove(state_path)
    print(f"cluster.py: stopped and removed {state['directory']}")


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("start", "stop"):
        sys.exit("usage: cluster.py start|stop STATE_FILE")
    (start if sys.argv[1] == "start" else stop)(os.path.abspath(sys.argv[2]))


if __name__ == "__main__":
    main()
