import ChronicleSchema
import Foundation

/// The notebook: a second app's model, which Chronicle's sources never mention (issue 42
/// asks for its figures beside GRDB). Copied from `Tests/ChronicleTestSupport/NotebookModel.swift`
/// (the benchmark is an app of its own and imports no test target), with one addition: an
/// index of `folderId`, as an app that lists a folder's notes declares it. `day` needs none:
/// the `NotesPerDay` aggregate groups by it, so it is indexed anyway.
enum NotebookModel {
    /// Folders (a unique name up to case), notes (a day, a decimal cost, a pin set by events
    /// of its own, a folder whose deletion hides them, a set of labels) and labels; notes per day.
    static let model: ChronicleModel = {
        do {
            return try ChronicleModel("notebook", version: 1) { model in
                model.entity("Folder") { folder in
                    folder.text("name", .notBlank, .maxLength(80), unique: .caseFolded)
                }
                model.entity("Note") { note in
                    note.text("body", .emptyIsAbsent, optional: true)
                    note.day("day")
                    note.decimal("cost", optional: true)
                    note.boolean("pinned", default: .boolean(false), setBy: ChronicleModel.SetEvents(on: "NotePinned", off: "NoteUnpinned"))
                    note.reference("folderId", to: "Folder", optional: true, onParentDeletion: .hideWithParent)
                    note.references("labels", to: "Label", setBy: ChronicleModel.SetEvents(on: "NoteLabeled", off: "NoteUnlabeled"))
                    note.index("folderId")
                }
                model.entity("Label") { label in
                    label.text("name", .notBlank)
                }
                model.aggregate("NotesPerDay", of: "Note", groupedBy: "day") { day in
                    day.count("notes")
                    day.count("pinned", where: "pinned")
                    day.sum("spent", of: "cost")
                }
            }
        } catch {
            preconditionFailure("the notebook model is declared wrong: \(error)")
        }
    }()

    /// The declared entities, by name (each has one: the model above declares them).
    static let folder = model.entity(named: "Folder")!
    static let note = model.entity(named: "Note")!
    static let label = model.entity(named: "Label")!

    /// Every event type the model's entities write, in the order the data set file codes them.
    static let eventTypes: [String] = model.entities.flatMap(\.eventTypes)
}
