import ChronicleSchema
import Foundation

/// A note as the notebook app shows it, read from the stored entities where they are kept
/// (``ChronicleRecord``): what ``GRDBNote`` holds on the other side.
struct NoteRecord: ChronicleRecord {
    static let entity = "Note"
    let id: UUID
    let body: String?
    let day: String
    /// The decimal's digits, e.g. `12.50`.
    let cost: String?
    let pinned: Bool
    let folderID: UUID?
    /// The shown labels.
    let labels: [UUID]

    init(_ fields: borrowing ChronicleModel.Fields) {
        id = fields.id
        body = fields.text("body")
        day = fields.text("day") ?? ""
        cost = fields.text("cost")
        pinned = fields.boolean("pinned") ?? false
        folderID = fields.reference("folderId")
        labels = fields.members(of: "labels")
    }
}
