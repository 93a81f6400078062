import ChronicleSync
import Synchronization

/// A ``SyncEngine/Sleep`` that records each wait instead of sleeping: retry tests check the
/// backoff without waiting for real seconds.
final class WaitRecorder: Sendable {
    private let recorded = Mutex<[Duration]>([])

    var waits: [Duration] { recorded.withLock { $0 } }

    var sleep: SyncEngine.Sleep {
        { [self] duration in
            recorded.withLock { $0.append(duration) }
            try Task.checkCancellation()
        }
    }
}
