import Foundation

extension ChronicleModel {
    /// Checks the model: names well formed and not repeated, references to declared
    /// entities, rules and defaults that fit their fields, aggregates over declared fields.
    /// - throws: ``ChronicleModelError`` for the first problem.
    public func validate() throws(ChronicleModelError) {
        guard Self.isModelName(name) else {
            throw refusal("its name must be 1 to 64 lowercase letters, digits and dashes, starting with a letter")
        }
        guard version >= 1 else { throw refusal("its version must be 1 or more, not \(version)") }
        guard !entities.isEmpty else { throw refusal("it declares no entity") }
        var types: [String: String] = [:]   // event type → entity
        var streams: Set<String> = []
        var names: Set<String> = []
        for entity in entities {
            guard Self.isIdentifier(entity.name, upper: true) else {
                throw refusal("an entity's name must be a letter A-Z and then letters and digits (at most 64)", entity: entity.name)
            }
            guard names.insert(entity.name).inserted else { throw refusal("declared twice", entity: entity.name) }
            guard Self.isStreamPrefix(entity.stream) else {
                throw refusal("its stream prefix '\(entity.stream)' must be 1 to 32 lowercase letters and digits, starting with a letter", entity: entity.name)
            }
            guard streams.insert(entity.stream).inserted else {
                throw refusal("its stream prefix '\(entity.stream)' is another entity's", entity: entity.name)
            }
            guard entity.eventSchemaVersion >= 1 else { throw refusal("its event schema version must be 1 or more", entity: entity.name) }
            for type in entity.eventTypes {
                guard Self.isIdentifier(type, upper: true) else {
                    throw refusal("its event type '\(type)' must be a letter A-Z and then letters and digits", entity: entity.name)
                }
                if let other = types.updateValue(entity.name, forKey: type) {
                    throw refusal("its event type '\(type)' is " + (other == entity.name ? "used twice" : "also entity '\(other)''s"),
                                  entity: entity.name)
                }
            }
            try validateFields(of: entity)
        }
        var aggregateNames: Set<String> = []
        for aggregate in aggregates {
            try validate(aggregate)
            guard aggregateNames.insert(aggregate.name).inserted, !names.contains(aggregate.name) else {
                throw refusal("its name is another entity's or aggregate's", aggregate: aggregate.name)
            }
        }
    }

    private func validateFields(of entity: Entity) throws(ChronicleModelError) {
        var names: Set<String> = ["id"]
        for field in entity.fields {
            func problem(_ text: String) -> ChronicleModelError { refusal(text, entity: entity.name, field: field.name) }
            guard Self.isIdentifier(field.name, upper: false) else {
                throw problem("a field's name must be a letter a-z and then letters and digits (at most 64)")
            }
            guard names.insert(field.name).inserted else {
                throw problem(field.name == "id" ? "'id' is every entity's own" : "declared twice")
            }
            if let target = field.type.target, self.entity(named: target) == nil {
                throw problem("refers to '\(target)', which the model does not declare")
            }
            for former in field.formerNames {
                guard Self.isIdentifier(former, upper: false), entity.field(named: former) == nil,
                      !entity.fields.contains(where: { $0.name != field.name && $0.formerNames.contains(former) }) else {
                    throw problem("its former name '\(former)' must be a field name no other field has, now or before")
                }
            }
            for former in field.formerTypes where former == field.type || !field.type.converts(from: former) {
                throw problem("cannot be converted from \(former.name) to \(field.type.name): a conversion must keep every value's meaning "
                              + "(an integer into a number or decimal, a number into a decimal, a day into a timestamp, "
                              + "a boolean into an integer, a scalar into text)")
            }
            if field.isIndexed, case .references = field.type {
                throw problem("a set cannot be indexed (its members are, without saying: query it equal to one)")
            }
            for rule in field.rules where !rule.applies(to: field.type) {
                throw problem("the rule \(rule.name) does not apply to a \(field.type.name) field")
            }
            for rule in field.rules {
                switch rule {
                case .minLength(let count), .maxLength(let count):
                    guard count >= 0 else { throw problem("\(rule.name) must be 0 or more") }
                case .pattern(let pattern):
                    guard (try? Regex(pattern)) != nil else { throw problem("the pattern '\(pattern)' is not a regular expression") }
                case .numberRange(let range):
                    guard range.lowerBound.isFinite, range.upperBound.isFinite else { throw problem("numberRange must be finite") }
                default: break
                }
            }
            if let value = field.defaultValue, !value.fits(field.type) {
                throw problem("its default does not fit a \(field.type.name) field")
            }
            if field.unique != nil, field.type != .text {
                throw problem("only a text field can be unique")
            }
            if field.onParentDeletion != nil, field.type.target == nil || field.type.name != "reference" {
                throw problem("only a reference names a parent")
            }
            if field.setBy != nil, field.type != .boolean, field.type.name != "references" {
                throw problem("only a boolean or a set is set by events of its own")
            }
            if field.type.name == "references" {
                guard let member = field.member, Self.isIdentifier(member, upper: false) else {
                    throw problem("a set's member key must be a letter a-z and then letters and digits")
                }
            }
        }
    }

    private func validate(_ aggregate: Aggregate) throws(ChronicleModelError) {
        func problem(_ text: String, field: String? = nil) -> ChronicleModelError {
            refusal(text, field: field, aggregate: aggregate.name)
        }
        guard Self.isIdentifier(aggregate.name, upper: true) else {
            throw problem("an aggregate's name must be a letter A-Z and then letters and digits (at most 64)")
        }
        guard let entity = entity(named: aggregate.entity) else {
            throw problem("counts '\(aggregate.entity)', which the model does not declare")
        }
        guard let grouped = entity.field(named: aggregate.groupedBy) else {
            throw problem("entity '\(entity.name)' has no such field to group by", field: aggregate.groupedBy)
        }
        guard grouped.type.name != "references" else { throw problem("a set cannot group rows", field: grouped.name) }
        guard !aggregate.measures.isEmpty else { throw problem("it declares no count or sum") }
        var members: Set<String> = [aggregate.key]
        guard Self.isIdentifier(aggregate.key, upper: false) else { throw problem("its key '\(aggregate.key)' is not a member name") }
        for measure in aggregate.measures {
            guard Self.isIdentifier(measure.name, upper: false), members.insert(measure.name).inserted else {
                throw problem("its member '\(measure.name)' is not a member name, or repeated")
            }
            switch measure.kind {
            case .count:
                if let name = measure.field {
                    guard entity.field(named: name)?.type == .boolean else {
                        throw problem("a count's condition must be a boolean field of '\(entity.name)'", field: name)
                    }
                }
            case .sum:
                guard let name = measure.field, let field = entity.field(named: name),
                      [.integer, .number, .decimal].contains(field.type) else {
                    throw problem("a sum must be over an integer, number or decimal field of '\(entity.name)'", field: measure.field)
                }
            }
        }
    }

    private func refusal(_ problem: String, entity: String? = nil, field: String? = nil,
                         aggregate: String? = nil) -> ChronicleModelError {
        ChronicleModelError(name, entity: entity, field: field, aggregate: aggregate, problem)
    }

    static func isModelName(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, ("a"..."z").contains(first), text.utf8.count <= 64 else { return false }
        return text.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
    }

    static func isIdentifier(_ text: String, upper: Bool) -> Bool {
        guard let first = text.unicodeScalars.first, text.utf8.count <= 64,
              (upper ? ("A"..."Z") : ("a"..."z")).contains(first) else { return false }
        return text.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) }
    }

    static func isStreamPrefix(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, ("a"..."z").contains(first), text.utf8.count <= 32 else { return false }
        return text.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) }
    }
}
