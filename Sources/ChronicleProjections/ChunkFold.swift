/// Where a model stands in a write transaction that folds chunks of the log into it: the last
/// position folded and how many events it skipped (a live model's ``ProjectionState``, a
/// rebuild's ``BuildState``).
protocol FoldPosition {
    var checkpoint: UInt64 { get set }
    var skipped: UInt64 { get set }
}

extension ProjectionState: FoldPosition {}
extension BuildState: FoldPosition {}

/// One model folded in a write transaction: its batch, and where it stands.
struct ModelFold<Position: FoldPosition> {
    let name: ProjectionName
    var position: Position
    var batch: any Projection
}

/// What the chunks one transaction folded came to.
struct FoldedChunks {
    var events = 0
    /// The bytes of the events' data.
    var bytes = 0
    /// The position of the last event folded; nil when there was none.
    var last: UInt64?
    /// The log's head when the last chunk was read.
    var head: UInt64?

    /// Whether the fold stopped at the log's head (or folded nothing): another overlay would find
    /// nothing more to fold.
    var reachedHead: Bool {
        guard let last, let head else { return true }
        return last >= head
    }
}

extension TransactionBound {
    /// Folds the chunks `next` gives into every model (each chunk into all of them, each model
    /// skipping the events up to its checkpoint) until this bound is reached, whole chunks, or
    /// `next` has none. The one loop of a rebuild's, an upgrade's, a backlog's and a live batch's
    /// transaction.
    func fold<Position>(_ models: inout [ModelFold<Position>], from next: () throws -> LogPrefetcher.Batch?) throws -> FoldedChunks {
        var folded = FoldedChunks()
        while allowsMore(afterEvents: folded.events, bytes: folded.bytes, held: models.lazy.map(\.batch.heldEntities),
                         loaded: models.lazy.map(\.batch.loadedBytes)),
              let chunk = try next() {
            for index in models.indices {
                let checkpoint = models[index].position.checkpoint
                models[index].position.skipped += try models[index].batch.fold(chunk.events, after: checkpoint)
                models[index].position.checkpoint = max(checkpoint, chunk.last)
            }
            folded.events += chunk.count
            folded.bytes += chunk.bytes
            folded.last = chunk.last
            folded.head = chunk.head
        }
        return folded
    }
}
