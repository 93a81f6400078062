/// The result of a log's `verify`: how much was checked and the first problem found (also what
/// `ChronicleStore.verify()` returns, so an app reads it with `import Chronicle` alone).
public struct VerifyReport: Sendable, Equatable {
    /// What is wrong with a stored record.
    public enum Cause: String, Sendable, Equatable {
        /// `checksum`: the record's bytes do not match its checksum; `chain`: its hash does not follow from
        /// the previous event's; `gap`: a position is missing; `format`: a record or key cannot be read;
        /// `position`: the record names another position; `index`: the id or stream index does not match the events.
        case checksum, chain, gap, format, position, index
    }

    /// One problem, at the first position where it shows.
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        /// The position where the problem shows.
        public var position: UInt64
        /// The kind of problem.
        public var cause: Cause
        /// What exactly is wrong, in words.
        public var detail: String
        public var description: String { "position \(position): \(cause.rawValue): \(detail)" }

        /// A problem of `cause` at `position`, in words (`detail`).
        public init(position: UInt64, cause: Cause, detail: String) {
            self.position = position
            self.cause = cause
            self.detail = detail
        }
    }

    /// Events whose records were fully checked.
    public var eventsChecked: Int
    /// The log's last position.
    public var head: UInt64
    /// The hash of the last event (hex), the chain's summary.
    public var headHash: String
    /// The first problem found, if any (checking stops there: what follows is suspect).
    public var problem: Problem?
    /// Extra problems found by other checkers (the stored entities).
    public var otherProblems: [String] = []

    /// A report of `eventsChecked` events up to `head`, whose hash is `headHash`.
    public init(eventsChecked: Int, head: UInt64, headHash: String, problem: Problem?, otherProblems: [String] = []) {
        self.eventsChecked = eventsChecked
        self.head = head
        self.headHash = headHash
        self.problem = problem
        self.otherProblems = otherProblems
    }

    /// `true` when nothing is wrong.
    public var isIntact: Bool { problem == nil && otherProblems.isEmpty }
}
