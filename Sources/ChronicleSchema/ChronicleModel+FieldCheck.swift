import Foundation
import UUIDText
import JSONText

extension ChronicleModel {
    /// Why a command is refused: one line a person can act on, naming the field or entity,
    /// and the same as a value an app can switch on (``reason``), to say it in words of its own.
    ///
    /// ```swift
    /// catch let problem as ChronicleModel.CommandProblem {
    ///     if case .taken(field: "name", _) = problem.reason { showNameTaken() } else { show(problem.description) }
    /// }
    /// ```
    public struct CommandProblem: Error, Sendable, Hashable, CustomStringConvertible {
        /// The line, for people.
        public let description: String
        /// What is wrong, as a value.
        public let reason: Reason

        /// What refused a command.
        public enum Reason: Sendable, Hashable {
            /// A value breaks its field's type or one of its rules (its length, range, pattern, …).
            case invalidValue(field: String)
            /// A field that must hold a value was given none, or would be cleared.
            case required(field: String)
            /// The entity named (the command's own, a parent, a set's member) was never created.
            case unknown(entity: String, id: UUID)
            /// The entity named (the command's own, a parent, a set's member) is deleted or hidden.
            case deleted(entity: String, id: UUID)
            /// A restoration of an entity that is not deleted.
            case notDeleted(entity: String, id: UUID)
            /// A creation with an id an entity already has.
            case alreadyExists(entity: String, id: UUID)
            /// A boolean set by events of its own already holds `value`.
            case alreadySet(field: String, value: Bool)
            /// A set already holds `member`.
            case alreadyMember(field: String, member: UUID)
            /// A set does not hold `member`.
            case notMember(field: String, member: UUID)
            /// Another live entity holds the unique `value` (as given).
            case taken(field: String, value: String)
            /// An update that names no field.
            case nothingToUpdate
            /// A deletion that the parent's live children refuse (`refuseParentDeletion`).
            case hasLiveChildren(entity: String, count: Int)
            /// A command the model cannot decide: an entity or a field it does not declare, a
            /// field that is not a set, or a problem an app's own command gives.
            case other
        }

        /// A problem saying `description`, of the reason `reason`.
        public init(_ description: String, reason: Reason = .other) {
            self.description = description
            self.reason = reason
        }

        /// Two problems are equal when they say the same line: the reason is what the line
        /// says, as a value (so `.refused(.init("unknown note …"))` still matches a refusal).
        public static func == (a: Self, b: Self) -> Bool { a.description == b.description }

        public func hash(into hasher: inout Hasher) { hasher.combine(description) }
    }
}

extension ChronicleModel.Field {
    /// `value`, given to this field by a command, checked by its type and rules and normalized
    /// by them, in the order declared; nil when it is no value (empty text of a field whose
    /// rules say ``ChronicleModel/FieldRule/emptyIsAbsent``).
    /// - throws: ``ChronicleModel/CommandProblem`` naming the field and the broken rule.
    public func checked(_ value: ChronicleModel.FieldValue) throws(ChronicleModel.CommandProblem) -> ChronicleModel.FieldValue? {
        func problem(_ text: String) -> ChronicleModel.CommandProblem {
            ChronicleModel.CommandProblem("\(name) \(text)", reason: .invalidValue(field: name))
        }
        switch (type, value) {
        case (_, .null):
            // No value: the decider judges whether the field may be cleared.
            return nil
        case (.text, .text(var text)):
            for rule in rules {
                switch rule {
                case .trimmed: text = text.trimmingCharacters(in: .whitespacesAndNewlines)
                case .notBlank:
                    guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw problem("must not be blank") }
                case .minLength(let least):
                    guard text.count >= least else { throw problem("must be at least \(least) characters (got \(text.count))") }
                case .maxLength(let most):
                    guard text.count <= most else { throw problem("must be at most \(most) characters (got \(text.count))") }
                case .pattern(let pattern):
                    guard let regex = try? Regex(pattern), (try? regex.wholeMatch(in: text)) != nil else {
                        throw problem("must match \(pattern) (got \(Self.quoted(text)))")
                    }
                case .canonicalComposition: text = text.precomposedStringWithCanonicalMapping
                case .lowercased: text = text.lowercased()
                case .emptyIsAbsent: if text.isEmpty { return nil }
                case .range, .numberRange: break
                }
            }
            return .text(text)
        case (.integer, .integer(let number)):
            for case .range(let range) in rules where !range.contains(number) {
                throw problem("must be within \(range.lowerBound)…\(range.upperBound) (got \(number))")
            }
            return value
        case (.number, .number), (.number, .integer):
            let double: Double
            switch value {
            case .integer(let whole): double = Double(whole)
            case .number(let number): double = number
            default: double = .nan
            }
            guard double.isFinite else { throw problem("must be a finite number") }
            for case .numberRange(let range) in rules where !range.contains(double) {
                throw problem("must be within \(range.lowerBound)…\(range.upperBound) (got \(double))")
            }
            return .number(double)
        case (.decimal, .text(let text)):
            guard ChronicleModel.FieldRule.isDecimal(text) else { throw problem("must be a decimal number like 12.50 (got \(Self.quoted(text)))") }
            return value
        case (.day, .text(let text)):
            guard ChronicleModel.FieldRule.isCalendarDay(text) else {
                throw problem("must be a real calendar day as YYYY-MM-DD (got \(Self.quoted(text)))")
            }
            return value
        case (.timestamp, .text(let text)):
            guard Self.isTimestamp(text) else { throw problem("must be a UTC time like 2026-03-01T09:30:00.000Z (got \(Self.quoted(text)))") }
            return value
        case (.boolean, .boolean):
            return value
        case (.reference, .text(let text)):
            guard let id = UUID(hyphenated: text) else { throw problem("must be an id (got \(Self.quoted(text)))") }
            return .text(id.lowercasedString)
        case (.references, .ids):
            return value
        default:
            throw problem("must be \(Self.article(type))")
        }
    }

    /// `YYYY-MM-DDTHH:MM:SS` with optional fractional seconds and `Z`.
    static func isTimestamp(_ text: String) -> Bool {
        let parts = text.split(separator: "T", omittingEmptySubsequences: false)
        guard parts.count == 2, ChronicleModel.FieldRule.isCalendarDay(String(parts[0])), parts[1].hasSuffix("Z") else { return false }
        let time = parts[1].dropLast().split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(time.count), time.count == 1 || (!time[1].isEmpty && time[1].allSatisfy { $0.isASCII && $0.isNumber }) else {
            return false
        }
        let clock = time[0].split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
        guard clock.count == 3, let hour = clock[0], let minute = clock[1], let second = clock[2],
              time[0].count == 8 else { return false }
        return (0..<24).contains(hour) && (0..<60).contains(minute) && (0..<61).contains(second)
    }

    static func article(_ type: ChronicleModel.FieldType) -> String {
        switch type {
        case .text: "text"
        case .integer: "an integer"
        case .number: "a number"
        case .decimal: "a decimal number"
        case .boolean: "true or false"
        case .day: "a day"
        case .timestamp: "a timestamp"
        case .reference(let entity): "the id of a \(entity)"
        case .references(let entity): "a set of \(entity) ids"
        }
    }

    static func quoted(_ text: String) -> String { JSONQuoting.quoted(text) }
}
