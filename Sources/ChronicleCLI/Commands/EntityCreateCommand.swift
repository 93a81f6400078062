import ArgumentParser
import ChronicleSchema
import ChronicleLog
import Foundation

/// `chronicle create ENTITY field=value…`: creates an entity of the store's model, checked by
/// its rules.
struct EntityCreateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create an entity of the store's model; prints its new id.",
        discussion: "Values are checked by the model's rules (see 'chronicle model'): 'chronicle create Note day=2026-03-01 "
            + "body=milk labels=ID,ID'. A set is given as ids separated by commas.")

    @OptionGroup var store: StoreOptions
    @Argument(help: "The entity's name, as 'chronicle model' shows it.") var entity: String
    @Argument(help: "Its fields, each field=value.") var assignments: [String] = []

    func run() async throws {
        let id = UUIDv7.make()
        try await ModelWriting.run({ model in
            guard let declared = model.entity(named: entity) else { throw ChronicleModel.CommandProblem("model '\(model.name)' has no entity '\(entity)'") }
            let given = try ModelWriting.values(assignments, of: declared)
            guard given.added.isEmpty, given.removed.isEmpty else { throw RefusedInput("give a new entity's set whole: field=ID,ID") }
            return ChronicleModel.Command(entity: declared.name, id: id, action: .create(given.values))
        }, store: store)
        CLIOutput.line(id.uuidString.lowercased())
    }
}
