import Chronicle

/// The app's model: everything Chronicle knows of notes, folders and labels. Adding an entity
/// or a field is a change to this file alone (a new version of the model).
enum NotesModel {
    /// The first version, which the app ships today.
    static let model = declared(version: 1)

    /// The next version: a note's `title` is called `headline`, notes can be archived
    /// (false for every note written before), and a note can have reminders. It opens the
    /// first version's stores.
    static let version2 = declared(version: 2)

    private static func declared(version: Int) -> ChronicleModel {
        do {
            return try ChronicleModel("notebook", version: version) { model in
                model.entity("Folder") { folder in
                    // Unique up to case: "Work" and "work" cannot both be created here; made
                    // apart on two devices, both are kept and shown as "Work" and "work (2)".
                    folder.text("name", .trimmed, .notBlank, .maxLength(80), unique: .caseFolded)
                }
                model.entity("Note") { note in
                    let title = version == 1 ? "title" : "headline"
                    note.text(title, .trimmed, .notBlank, .maxLength(200))
                    if version >= 2 {
                        note.rename("title", to: "headline")
                        note.boolean("archived", default: false)
                    }
                    note.text("body", .emptyIsAbsent, optional: true)
                    note.day("day")
                    note.boolean("pinned", default: false, setBy: ChronicleModel.SetEvents(on: "NotePinned", off: "NoteUnpinned"))
                    // A folder's deletion hides its notes; its restoration shows them again.
                    note.reference("folderId", to: "Folder", optional: true, onParentDeletion: .hideWithParent)
                    note.references("labels", to: "Label", setBy: ChronicleModel.SetEvents(on: "NoteLabeled", off: "NoteUnlabeled"))
                    note.decimal("cost", optional: true)
                    // Queries by day (a week's notes) read only the notes they return.
                    note.index("day")
                }
                model.entity("Label") { label in
                    label.text("name", .trimmed, .notBlank, unique: .exact)
                }
                if version >= 2 {
                    // A reminder belongs to a note: hidden with its deletion, back with its restoration.
                    model.entity("Reminder") { reminder in
                        reminder.reference("noteId", to: "Note", onParentDeletion: .hideWithParent)
                        reminder.day("due")
                        reminder.boolean("done", default: false)
                        // A day's reminders are read without scanning the others.
                        reminder.index("due")
                    }
                }
                // One row per day: how many notes, how many pinned, what they cost.
                model.aggregate("NotesPerDay", of: "Note", groupedBy: "day") { day in
                    day.count("notes")
                    day.count("pinned", where: "pinned")
                    day.sum("spent", of: "cost")
                }
            }
        } catch {
            fatalError("the notebook's model is declared wrong: \(error)")
        }
    }
}
