/// Why a model is refused: one line naming the model, and the entity, field or aggregate.
///
/// ```swift
/// // model 'notes', entity 'Note', field 'folderId': refers to 'Folder', which the model does not declare
/// ```
public struct ChronicleModelError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The line, for people.
    public let description: String

    init(_ model: String, entity: String? = nil, field: String? = nil, aggregate: String? = nil, _ problem: String) {
        var place = "model '\(model)'"
        if let entity { place += ", entity '\(entity)'" }
        if let aggregate { place += ", aggregate '\(aggregate)'" }
        if let field { place += ", field '\(field)'" }
        description = place + ": " + problem
    }

    init(recordProblem: String) {
        description = "the recorded model cannot be read: " + recordProblem
    }
}
