import ChronicleSchema
import Foundation

/// A record (``ChronicleRecord``) of any entity: every field's value, read through each typed
/// accessor of ``ChronicleModel/Fields`` that fits its kind, and the state it makes. Tests
/// read it beside ``ChronicleModel/EntityState``, which must be the same entity.
///
/// The entity it reads is ``name``, bound for a task: `EveryFieldRecord.$name.withValue("Note") { … }`.
public struct EveryFieldRecord: ChronicleRecord {
    @TaskLocal public static var name = ""
    public static var entity: String { name }

    /// The entity as its fields read: values by field name.
    public let state: ChronicleModel.EntityState
    /// The fields whose typed accessor disagreed with their value.
    public let disagreements: [String]

    public init(_ fields: borrowing ChronicleModel.Fields) {
        var values: [String: ChronicleModel.FieldValue] = [:]
        var disagreements: [String] = []
        for field in fields.declaration.fields {
            let value = fields.value(field.name)
            values[field.name] = value
            let agrees = switch value {
            case .text(let text)?:
                fields.text(field.name) == text
                    && (field.type.name != "reference" || fields.reference(field.name) == UUID(uuidString: text))
            case .integer(let number)?: fields.integer(field.name) == number && fields.number(field.name) == Double(number)
            case .number(let number)?: fields.number(field.name) == number && fields.integer(field.name) == nil
            case .boolean(let flag)?: fields.boolean(field.name) == flag && fields.text(field.name) == nil
            case .ids(let ids)?: fields.members(of: field.name) == ids
            case .null?, nil: fields.text(field.name) == nil && fields.members(of: field.name).isEmpty
            }
            if !agrees { disagreements.append(field.name) }
        }
        state = ChronicleModel.EntityState(entity: fields.declaration.name, id: fields.id, values: values)
        self.disagreements = disagreements
    }
}
