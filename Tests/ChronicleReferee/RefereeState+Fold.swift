import Foundation

// The merge rules of docs/PROTOCOL.md ("Merging") and the domain of docs/CLI.md, as a plain
// fold in the server's order. Entities are kept whole while deleted, so that a restoration
// brings them back "as at the deletion" simply by clearing the flag: a change that meets the
// flag is dropped, never stored.
//
// Skipped, as a reader that "does not guess" (PROTOCOL.md, `schemaVersion`): unknown types,
// events whose `schemaVersion` is newer than their type's (tag events 2, others 1), events
// whose stream does not name their entity's kind, events about an entity never created,
// and a second creation of one id (the first stands).
//
// Settled since in docs/PROTOCOL.md ("Fine points of the rules"), as read here first:
// - a todo hidden only by its user's deletion (created offline for that user, or never
//   reached by the user's deletion batch) takes its own changes, shown once the user returns;
// - a deleted tag keeps its place on todos (per tag, the later Tagged/Untagged still wins);
// - a restoration keeps a tag's place among equal names (it gives no name);
// - a rename to the name the tag already has still moves the tag after the others.
// DOCS-OPEN: a todo naming a user this fold never saw created is taken as not live.
// DOCS-OPEN: `"memo": null` (and any member of the wrong type) is taken as absent, not as a clear.
// DOCS-OPEN: colors are lowercased in the model ("stored lowercase") whatever the event holds;
//   tag names of shape 1 are upcast by NFC only (docs/FORMAT.md, which says more, is not read).

struct RefereeUserRecord {
    var name: String, age: Int, deleted = false
}

struct RefereeTodoRecord {
    var title: String, deadline: String, userId: String?, memo: String?
    var isCompleted = false, deleted = false
    /// Per tag id, whether the later of `TodoTagged`/`TodoUntagged` tagged it.
    var tagged: [String: Bool] = [:]
}

struct RefereeTagRecord {
    var name: String, color: String, deleted = false
    /// Fold index of the write that gave `name`: the order collisions are settled in.
    var nameRank: Int
}

extension RefereeState {
    /// Folds events in the given order (the server's) into what every device shows.
    public static func fold(_ events: [RefereeEvent]) -> RefereeState {
        var users: [String: RefereeUserRecord] = [:]
        var todos: [String: RefereeTodoRecord] = [:]
        var tags: [String: RefereeTagRecord] = [:]
        for (rank, event) in events.enumerated() {
            let data = event.data
            let newest = event.type.hasPrefix("Tag") ? 2 : 1
            guard (event.schemaVersion ?? 1) <= newest else { continue }
            func entity(_ prefix: String) -> String? {
                event.stream.hasPrefix(prefix) ? String(event.stream.dropFirst(prefix.count)) : nil
            }
            // Tag names upcast to shape 2: canonical composition.
            let tagName = data["name"]?.string?.precomposedStringWithCanonicalMapping
            let memo = data["memo"]?.string.map { $0.isEmpty ? nil : $0 }

            switch event.type {
            case "UserCreated":
                guard let id = entity("user-"), users[id] == nil,
                      let name = data["name"]?.string, let age = data["age"]?.integer else { continue }
                users[id] = RefereeUserRecord(name: name, age: age)
            case "UserUpdated", "UserDeleted", "UserRestored":
                guard let id = entity("user-"), var user = users[id] else { continue }
                switch event.type {
                case "UserDeleted": user.deleted = true
                case "UserRestored": user.deleted = false
                default:
                    guard !user.deleted else { continue }
                    user.name = data["name"]?.string ?? user.name
                    user.age = data["age"]?.integer ?? user.age
                }
                users[id] = user

            case "TodoCreated":
                guard let id = entity("todo-"), todos[id] == nil, let title = data["title"]?.string,
                      let deadline = data["deadline"]?.string else { continue }
                todos[id] = RefereeTodoRecord(
                    title: title, deadline: deadline, userId: data["userId"]?.string, memo: memo ?? nil)
            case "TodoUpdated", "TodoCompleted", "TodoReopened", "TodoDeleted", "TodoRestored",
                 "TodoTagged", "TodoUntagged":
                guard let id = entity("todo-"), var todo = todos[id] else { continue }
                if event.type == "TodoRestored" { todo.deleted = false }
                if event.type == "TodoDeleted" { todo.deleted = true }
                guard !todo.deleted else { todos[id] = todo; continue }
                switch event.type {
                case "TodoCompleted": todo.isCompleted = true
                case "TodoReopened": todo.isCompleted = false
                case "TodoTagged", "TodoUntagged":
                    guard let tagId = data["tagId"]?.string else { continue }
                    todo.tagged[tagId] = event.type == "TodoTagged"
                case "TodoUpdated":
                    todo.title = data["title"]?.string ?? todo.title
                    todo.deadline = data["deadline"]?.string ?? todo.deadline
                    if let memo { todo.memo = memo }
                default: break
                }
                todos[id] = todo

            case "TagCreated":
                guard let id = entity("tag-"), tags[id] == nil, let tagName,
                      let color = data["color"]?.string else { continue }
                tags[id] = RefereeTagRecord(name: tagName, color: color.lowercased(), nameRank: rank)
            case "TagUpdated", "TagDeleted", "TagRestored":
                guard let id = entity("tag-"), var tag = tags[id] else { continue }
                switch event.type {
                case "TagDeleted": tag.deleted = true
                // A restoration gives no name, so the tag's rank stays that of the
                // write that named it before the deletion, even if another live tag took the
                // name meanwhile (possible only across devices: the command refuses it here).
                case "TagRestored": tag.deleted = false
                default:
                    guard !tag.deleted else { continue }
                    // A rename to the name the tag already has still counts as the
                    // write that gave it (moves the tag to the end of its collision order).
                    if let tagName { tag.name = tagName; tag.nameRank = rank }
                    tag.color = data["color"]?.string?.lowercased() ?? tag.color
                }
                tags[id] = tag
            default:
                continue  // A type this referee does not know: stored by a client, folded by none.
            }
        }
        return derive(users: users, todos: todos, tags: tags)
    }

    /// The live models, shown tag names and stats from the fold's records.
    static func derive(
        users: [String: RefereeUserRecord], todos: [String: RefereeTodoRecord],
        tags: [String: RefereeTagRecord]
    ) -> RefereeState {
        var state = RefereeState()
        for (id, user) in users where !user.deleted {
            state.users[id] = RefereeUser(id: id, name: user.name, age: user.age)
        }
        // Among live tags equal up to case, in the order of the writes that gave the names,
        // the first keeps its name, the next is shown with " (2)", then " (3)", …
        let live = tags.filter { !$0.value.deleted }
        for group in Dictionary(grouping: live, by: { RefereeCaseFolding.fold($0.value.name) }).values {
            for (index, entry) in group.sorted(by: { $0.value.nameRank < $1.value.nameRank }).enumerated() {
                let shown = index == 0 ? entry.value.name : "\(entry.value.name) (\(index + 1))"
                state.tags[entry.key] = RefereeTag(id: entry.key, name: shown, color: entry.value.color)
                if index > 0 {
                    state.tagRenamed.insert(RefereeTagRenamed(stream: "tag-\(entry.key)", shownName: shown))
                }
            }
        }
        for (id, todo) in todos where !todo.deleted {
            if let userId = todo.userId, state.users[userId] == nil { continue }
            let shownTags = todo.tagged.filter { $0.value && state.tags[$0.key] != nil }.keys.sorted()
            state.todos[id] = RefereeTodo(
                id: id, title: todo.title, deadline: todo.deadline, userId: todo.userId,
                memo: todo.memo, isCompleted: todo.isCompleted, tags: shownTags)
            var stat = state.stats[todo.deadline] ?? RefereeStat(date: todo.deadline, total: 0, completed: 0)
            stat.total += 1
            stat.completed += todo.isCompleted ? 1 : 0
            state.stats[todo.deadline] = stat
        }
        return state
    }
}
