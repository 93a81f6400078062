#!/usr/bin/env bash
# Writes a small store with a given release of `chronicle`, as a compatibility fixture
# (docs/FORMAT.md: "keep a small store of every old format"). The store holds users, todos
# completed, moved and deleted, a user deleted with its todos (the cascade), a push the
# server acknowledged, and one event still pending. Beside the store: what that release
# printed for it (users, todos, stats, the log), which the new code must still read.
#
#   Tests/Fixtures/make-store.sh CHRONICLE_BINARY OUT_DIR
#
# The store was made for commit 8db3d37 (store format 2, the last before this round's format
# changes) from a `git worktree` of that commit:
#   git worktree add /tmp/c 8db3d37 && (cd /tmp/c && swift build --product chronicle)
#   Tests/Fixtures/make-store.sh /tmp/c/.build/debug/chronicle Tests/Fixtures/store-8db3d37
# Both environments are copied compacted (mdb_copy -c, Debian's lmdb-utils), so the models'
# reserved map does not go into git.
#
# A release that has tags and pulls (e63af5f, format 4: the last before undo's notes) gets
# more: tags created, renamed, deleted and on todos, and a second device whose edits the
# store pulled (so it has upstream positions, a merged tag name and an overruled write);
# tags.json is written beside the rest. Made like the first:
#   git worktree add /tmp/e e63af5f && (cd /tmp/e && swift build --product chronicle)
#   Tests/Fixtures/make-store.sh /tmp/e/.build/debug/chronicle Tests/Fixtures/store-e63af5f
set -euo pipefail
CLI="$1"
OUT="$2"
WORK="$(mktemp -d)"
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
export CHRONICLE_STORE="$WORK/store"

ada=$("$CLI" user add --name Ada --age 36)
bob=$("$CLI" user add --name Bob --age 41)
"$CLI" user add --name "Émile" --age 7 >/dev/null
t1=$("$CLI" todo add --title "Write notes" --deadline 2026-12-01 --user "$ada" --memo "chapter 2")
t2=$("$CLI" todo add --title "Pay rent" --deadline 2026-12-01 --user "$bob")
t3=$("$CLI" todo add --title "Call mom" --deadline 2026-12-02)
t4=$("$CLI" todo add --title "Fix bike" --deadline 2026-12-03 --user "$bob")
t5=$("$CLI" todo add --title "Plan trip" --deadline 2026-12-04 --user "$ada")
"$CLI" todo complete "$t1"
"$CLI" todo complete "$t4"
"$CLI" todo update "$t3" --deadline 2026-12-05 --title "Call mom and dad"
"$CLI" todo delete "$t5"
"$CLI" user update "$ada" --age 37
"$CLI" user delete "$bob"          # and, in the same batch, Bob's live todos t2 and t4

"$CLI" serve --port 0 --data "$WORK/server" --token fixture-token > "$WORK/serve.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 100); do
  port=$(grep -o '127.0.0.1:[0-9]*' "$WORK/serve.log" | head -1 | cut -d: -f2 || true)
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { cat "$WORK/serve.log" >&2; exit 1; }
"$CLI" sync push --remote "http://127.0.0.1:$port" --token fixture-token >/dev/null

if "$CLI" tag --help >/dev/null 2>&1; then
  remote=(--remote "http://127.0.0.1:$port" --token fixture-token)
  work=$("$CLI" tag add --name Work --color "#112233")
  home=$("$CLI" tag add --name Home --color "#00AA00")
  old=$("$CLI" tag add --name Old --color "#abcdef")
  "$CLI" todo tag "$t1" "$work"
  "$CLI" todo tag "$t3" "$home"
  "$CLI" todo tag "$t3" "$old"
  "$CLI" tag update "$home" --name House
  "$CLI" tag delete "$old"
  "$CLI" sync push "${remote[@]}" >/dev/null
  # A second device names a tag like this store's offline, pulls everything, and edits a todo.
  other="$WORK/other"
  CHRONICLE_STORE="$other" "$CLI" tag add --name WORK --color "#000000" >/dev/null
  CHRONICLE_STORE="$other" "$CLI" sync pull "${remote[@]}" >/dev/null
  CHRONICLE_STORE="$other" "$CLI" todo update "$t3" --title "Call mom, dad and Zoë" >/dev/null
  "$CLI" todo update "$t3" --memo "Sunday" >/dev/null   # offline here meanwhile, pending
  CHRONICLE_STORE="$other" "$CLI" sync push "${remote[@]}" >/dev/null
  "$CLI" sync pull "${remote[@]}" >/dev/null
fi
kill "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true; SERVER_PID=""

"$CLI" todo add --title "Buy milk" --deadline 2026-12-06 --user "$ada" >/dev/null   # pending: never pushed

rm -rf "$OUT"
mkdir -p "$OUT/log" "$OUT/models"
mdb_copy -c "$CHRONICLE_STORE/log" "$OUT/log"
mdb_copy -c "$CHRONICLE_STORE/models" "$OUT/models"
"$CLI" user list --json > "$OUT/users.json"
"$CLI" todo list --json > "$OUT/todos.json"
"$CLI" stats --json > "$OUT/stats.json"
"$CLI" log --json > "$OUT/log.json"
"$CLI" sync status --json > "$OUT/sync-status.json"
if "$CLI" tag --help >/dev/null 2>&1; then "$CLI" tag list --json > "$OUT/tags.json"; fi
echo "wrote $OUT: $("$CLI" verify | head -1)"
