import Foundation
import JSONText

extension ChronicleModel.EventReader {
    /// Per field written by creations and updates (not by events of its own), its place among
    /// the entity's fields, by its name; nil for an entity with a renamed field (whose data is
    /// read by every name the field had, through ``members(type:data:)``).
    static func fieldPlaces(of entity: ChronicleModel.Entity) -> [String: Int]? {
        guard entity.fields.allSatisfy(\.formerNames.isEmpty) else { return nil }
        var places: [String: Int] = [:]
        for (place, field) in entity.fields.enumerated() where field.setBy == nil { places[field.name] = place }
        return places
    }

    /// The values a creation's or an update's `data` gives for the fields of the entity at
    /// `index`, read straight into slots laid as its fields: no member is kept by name.
    ///
    /// The problems are those of reading the members first: invalid JSON before anything else,
    /// then data that is not an object, then the first field (in the entity's order) whose
    /// value has the wrong type.
    func fieldValues(ofEntityAt index: Int, type: String, data: UnsafeRawBufferPointer,
                     nullClears: Bool) throws(ChronicleModel.EventProblem) -> ChronicleModel.FieldValues {
        guard let places = fieldPlaces[index] else {
            var members = try Self.members(type: type, data: data)
            return try Self.values(of: model.entities[index], laid: layouts[index], in: &members, type: type, nullClears: nullClears)
        }
        let parsed: ParsedFields
        do throws(JSONSyntaxError) {
            parsed = try parseFields(data, ofEntityAt: index, places: places, type: type, nullClears: nullClears)
        } catch {
            throw ChronicleModel.EventProblem("\(type) data is not valid JSON: \(error)")
        }
        switch parsed {
        case .notObject(let kind):
            throw ChronicleModel.EventProblem("\(type) data must be a JSON object (got \(kind))")
        case .values(let values, let wrong):
            if let wrong { throw wrong.problem }
            return values
        }
    }

    private enum ParsedFields {
        case values(ChronicleModel.FieldValues, wrong: (place: Int, problem: ChronicleModel.EventProblem)?)
        /// The data is one JSON value, but not an object: its kind.
        case notObject(String)
    }

    /// Reads `data` into slots laid as the fields of the entity at `index`, whose writable
    /// fields `places` gives by name. Reads nothing of the entity's declaration but to convert
    /// a value that is not text (``fieldReadings``).
    private func parseFields(_ data: UnsafeRawBufferPointer, ofEntityAt index: Int, places: [String: Int],
                             type: String, nullClears: Bool) throws(JSONSyntaxError) -> ParsedFields {
        let readings = fieldReadings[index]
        var scanner = JSONScanner(data)
        guard scanner.nextValueKind() == .object else {
            let value = try Self.dataValue(&scanner)
            try scanner.end()
            return .notObject(value.kind)
        }
        var values = ChronicleModel.FieldValues(layout: layouts[index])
        var wrong: (place: Int, problem: ChronicleModel.EventProblem)?
        if try scanner.enterObject() {
            var names = JSONMemberNames()
            repeat {
                // A name is matched by its bytes where it has no escapes (the usual case).
                let place: Int? = switch try scanner.memberNameInPlace(unique: &names) {
                case .bytes(let range): Self.place(of: UnsafeRawBufferPointer(rebasing: data[range]), among: readings)
                case .text(let name): places[name]
                }
                // A member the model does not declare (written by a newer version): checked, passed over.
                guard let place else {
                    try scanner.skipValue(depth: 1)
                    continue
                }
                let reading = readings[place]
                let member: DataValue
                if reading.keepsTextInPlace, scanner.nextValueKind() == .string {
                    // Text and ids are copied from the data into the slot: no String is made.
                    switch try scanner.stringInPlace() {
                    case .bytes(let range):
                        let content = UnsafeRawBufferPointer(rebasing: data[range])
                        if values.setText(utf8: content, at: place, asReference: reading.isReference) { continue }
                        member = .string(String(decoding: content, as: UTF8.self))
                    case .text(let text):
                        member = .string(text)
                    }
                } else {
                    member = try Self.dataValue(&scanner)
                }
                if case .null = member {
                    if nullClears, reading.nullClears { values.setSlot(.null, at: place) }
                    continue
                }
                do throws(ChronicleModel.EventProblem) {
                    values.setSlot(try Self.converted(member, of: model.entities[index].fields[place], type: type), at: place)
                } catch {
                    if place < wrong?.place ?? .max { wrong = (place, error) }
                }
            } while try scanner.nextMember()
        }
        try scanner.end()
        return .values(values, wrong: wrong)
    }

    /// The place of the field written by creations and updates whose name's UTF-8 is `name`.
    private static func place(of name: UnsafeRawBufferPointer, among readings: [FieldReading]) -> Int? {
        readings.firstIndex { reading in
            guard let field = reading.name, field.count == name.count else { return false }
            return field.withUnsafeBytes { field in field.elementsEqual(name) }
        }
    }

    /// How a creation's or an update's data is read into one field: what the reader needs of
    /// its declaration for each member, planned once.
    struct FieldReading: Sendable {
        /// The field's name as UTF-8, for a member named so; nil for a field set by events of
        /// its own (no member of a creation or an update names it).
        let name: [UInt8]?
        /// Whether a string given is the value as it is, copied from the data (``FieldValues/setText(utf8:at:asReference:)``):
        /// text, a timestamp or a reference, of a field that never had another type.
        let keepsTextInPlace: Bool
        let isReference: Bool
        /// Whether `null` in an update clears it (``nullClears(_:)``).
        let nullClears: Bool

        init(_ field: ChronicleModel.Field) {
            name = field.setBy == nil ? Array(field.name.utf8) : nil
            isReference = if case .reference = field.type { true } else { false }
            keepsTextInPlace = field.formerTypes.isEmpty && (field.type == .text || field.type == .timestamp || isReference)
            nullClears = ChronicleModel.EventReader.nullClears(field)
        }
    }

    /// The values `members` give for the entity's fields written by creations and updates,
    /// in slots named `layout` (the entity's fields' names): under a field's name, or one it
    /// had before a rename.
    static func values(of entity: ChronicleModel.Entity, laid layout: [String], in members: inout [String: DataValue],
                               type: String, nullClears: Bool = false) throws(ChronicleModel.EventProblem) -> ChronicleModel.FieldValues {
        var values = ChronicleModel.FieldValues(layout: layout)
        for (place, field) in entity.fields.enumerated() where field.setBy == nil {
            // Under its name, or one it had before a rename (the newest first).
            guard let member = members[field.name] ?? field.formerNames.reversed().first(where: { members[$0] != nil }).flatMap({ members[$0] })
            else { continue }
            if case .null = member {
                if nullClears, Self.nullClears(field) { values.set(.null, at: place, named: field.name) }
                continue
            }
            values.set(try converted(member, of: field, type: type), at: place, named: field.name)
        }
        return values
    }

    /// Whether `null` for `field` in an update clears it; else it is absent. A text field that
    /// keeps no empty text is cleared by empty text: null in its place is absent, as the todo
    /// app has always read a memo of null.
    static func nullClears(_ field: ChronicleModel.Field) -> Bool {
        ChronicleModel.FieldValue.isClearable(field) && !field.rules.contains(.emptyIsAbsent)
    }

    /// The member as the field's value; one of a type the field had before, converted.
    private static func converted(_ member: DataValue, of field: ChronicleModel.Field, type: String) throws(ChronicleModel.EventProblem) -> ChronicleModel.FieldValue {
        // A timestamp reads any string: a day written when the field held days is told by its shape.
        if field.type == .timestamp, field.formerTypes.contains(.day), case .string(let text) = member, ChronicleModel.FieldRule.isCalendarDay(text) {
            return ChronicleModel.FieldValue.text(text).converted(from: .day, to: .timestamp) ?? .text(text)
        }
        do {
            return try value(member, of: field, type: type)
        } catch {
            // Written when the field had another type: the oldest that reads it (an integer
            // literal reads as the integer it was, before a number).
            for old in field.formerTypes {
                var former = field
                former.type = old
                if let read = try? value(member, of: former, type: type), let value = read.converted(from: old, to: field.type) {
                    return value
                }
            }
            throw error
        }
    }

    private static func value(_ member: DataValue, of field: ChronicleModel.Field, type: String) throws(ChronicleModel.EventProblem) -> ChronicleModel.FieldValue {
        func wrong(_ expected: String) -> ChronicleModel.EventProblem {
            ChronicleModel.EventProblem("\(type) data '\(field.name)' must be \(expected) (got \(member.kind))")
        }
        func invalid(_ text: String, _ expected: String) -> ChronicleModel.EventProblem {
            ChronicleModel.EventProblem("\(type) data '\(field.name)' must be \(expected) (got \(ChronicleModel.EventProblem.quotedValue(text)))")
        }
        switch (field.type, member) {
        case (.text, .string(let text)), (.timestamp, .string(let text)):
            return .text(text)
        case (.day, .string(let text)):
            guard ChronicleModel.FieldRule.isCalendarDay(text) else { throw invalid(text, "a real calendar day as YYYY-MM-DD") }
            return .text(text)
        case (.decimal, .string(let text)):
            guard ChronicleModel.FieldRule.isDecimal(text) else { throw invalid(text, "a decimal number as digits") }
            return .text(text)
        case (.reference, .string(let text)):
            guard let id = UUID(hyphenated: text) else { throw invalid(text, "a UUID") }
            // Spelt as Chronicle writes ids already (the usual case): kept, not spelt again.
            return .text(text.utf8.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "F") } ? id.lowercasedString : text)
        case (.integer, .number(let literal)):
            guard !literal.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) else { throw invalid(literal, "an integer") }
            guard let value = Int(literal) else { throw invalid(literal, "a 64-bit integer") }
            return .integer(value)
        case (.number, .number(let literal)):
            guard let value = Double(literal), value.isFinite else { throw invalid(literal, "a finite number") }
            return .number(value)
        case (.boolean, .bool(let value)):
            return .boolean(value)
        case (.references, .ids(let ids)):
            return .ids(ids)
        case (.text, _), (.timestamp, _), (.day, _), (.decimal, _), (.reference, _): throw wrong("a string")
        case (.integer, _): throw wrong("an integer")
        case (.number, _): throw wrong("a number")
        case (.boolean, _): throw wrong("a boolean")
        case (.references, _): throw wrong("an array of lowercase UUIDs")
        }
    }
}
