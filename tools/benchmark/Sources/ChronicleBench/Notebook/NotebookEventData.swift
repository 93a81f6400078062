import ChronicleSchema
import Foundation

/// The data of the notebook's events, spelt as the model's decider writes them
/// (`ChronicleModel.eventData`): a JSON object of the fields given, keys sorted by their UTF-8
/// bytes, no white space; each value as `FieldValue.json` spells it (a day and a decimal as
/// text, a reference as its lowercase id). A field left out is absent, not null; an update
/// clears an optional field with null, and the body (which keeps no empty text) with "".
enum NotebookEventData {
    /// `{}`: a deletion, a restoration, a pin or unpin.
    static let empty = Data("{}".utf8)

    /// A folder's or a label's creation or renaming: `{"name":"…"}`.
    static func named(_ name: String) -> Data {
        object([("name", .text(name))])
    }

    /// A note's creation: `{"body":…,"cost":…,"day":…,"folderId":…}`, the absent ones left out.
    static func noteCreated(body: String?, cost: String?, day: String, folder: UUID?) -> Data {
        var members: [(String, ChronicleModel.FieldValue)] = [("day", .text(day))]
        if let body { members.append(("body", .text(body))) }
        if let cost { members.append(("cost", .text(cost))) }
        if let folder { members.append(("folderId", .text(folder.uuidString.lowercased()))) }
        return object(members)
    }

    /// A note's update of one field: its new value, or nil to clear it.
    static func noteUpdated(_ field: String, to value: ChronicleModel.FieldValue?) -> Data {
        object([(field, value ?? (field == "body" ? .text("") : .null))])
    }

    /// A label added to or removed from a note: `{"labelId":"…"}`.
    static func label(_ id: UUID) -> Data {
        object([("labelId", .text(id.uuidString.lowercased()))])
    }

    private static func object(_ members: [(String, ChronicleModel.FieldValue)]) -> Data {
        let sorted = members.sorted { Array($0.0.utf8).lexicographicallyPrecedes($1.0.utf8) }
        return Data(("{" + sorted.map { ChronicleModel.FieldValue.text($0.0).json + ":" + $0.1.json }.joined(separator: ",") + "}").utf8)
    }
}
