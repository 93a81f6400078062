import ChronicleSchema
import Foundation

/// A second app's model, which Chronicle's sources never mention: notes in folders, with
/// labels. Tests that must hold for any declared model run on it beside the todo app's.
public enum NotebookModel {
    /// Folders (a unique name up to case), notes (a day, a decimal cost, a pin set by events
    /// of its own, a folder whose deletion hides them, a set of labels) and labels; notes per day.
    public static let model: ChronicleModel = {
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

    /// Test ids whose lowercase spelling sorts as `n` does: `0190aaaa-bbbb-7ccc-8ddd-00000000000n`.
    public static func id(_ n: Int) -> UUID { UUID(uuidString: text(n))! }

    /// ``id(_:)`` spelt in lowercase.
    public static func text(_ n: Int) -> String { String(format: "0190aaaa-bbbb-7ccc-8ddd-%012d", n) }
}
