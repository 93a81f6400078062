import ArgumentParser
import ChronicleSchema
import Foundation

/// `chronicle update ENTITY ID field=value… field+=ID field-=ID`: changes an entity of the
/// store's model, checked by its rules.
struct EntityUpdateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Change fields of an entity of the store's model.",
        discussion: "Values are checked by the model's rules: 'chronicle update Todo ID title=Rent isCompleted=true tags+=TAG'. "
            + "field+=ID and field-=ID add and remove one member of a set.")

    @OptionGroup var store: StoreOptions
    @Argument(help: "The entity's name, as 'chronicle model' shows it.") var entity: String
    @Argument(help: "Its id.") var id: String
    @Argument(help: "The changes: field=value, field+=ID, field-=ID.") var assignments: [String] = []

    func validate() throws {
        _ = try parseID(id, what: "entity")
    }

    func run() async throws {
        let id = try parseID(id, what: "entity")
        // One batch per kind of change, each decided on what the one before appended.
        let given: (values: [String: ChronicleModel.FieldValue], added: [(String, UUID)], removed: [(String, UUID)]) = try {
            let model = try RecordedModel(log: try StoreAccess.openLog(store)).model
            guard let declared = model.entity(named: entity) else { throw ChronicleModel.CommandProblem("model '\(model.name)' has no entity '\(entity)'") }
            return try ModelWriting.values(assignments, of: declared)
        }()
        guard !given.values.isEmpty || !given.added.isEmpty || !given.removed.isEmpty else {
            throw ChronicleModel.CommandProblem("nothing to update: give at least one field to change", reason: .nothingToUpdate)
        }
        if !given.values.isEmpty {
            try await ModelWriting.run({ _ in ChronicleModel.Command(entity: entity, id: id, action: .update(given.values)) }, store: store)
        }
        for (field, member) in given.added {
            try await ModelWriting.run({ _ in ChronicleModel.Command(entity: entity, id: id, action: .add(field: field, member: member)) }, store: store)
        }
        for (field, member) in given.removed {
            try await ModelWriting.run({ _ in ChronicleModel.Command(entity: entity, id: id, action: .remove(field: field, member: member)) }, store: store)
        }
    }
}
