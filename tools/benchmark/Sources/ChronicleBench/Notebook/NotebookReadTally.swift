/// What a run of reads found, summed alike on every system, so that the systems can be
/// checked to have found the same (the benchmark stops when they did not).
struct NotebookReadTally: Sendable {
    var rows = 0
    var pinned = 0
    var labels = 0
    var cents = 0

    /// Adds one note found.
    mutating func add(pinned: Bool, labels: Int, cents: Int?) {
        rows += 1
        if pinned { self.pinned += 1 }
        self.labels += labels
        self.cents += cents ?? 0
    }

    /// Adds one row of `NotesPerDay` found.
    mutating func add(dayRow notes: Int, pinned: Int, cents: Int) {
        rows += 1
        self.pinned += pinned
        labels += notes
        self.cents += cents
    }

    var description: String { "\(rows) rows, \(pinned) pinned, \(labels) labels or notes, \(cents) cents" }
}
