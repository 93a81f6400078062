#if canImport(Glibc)
import Glibc
#endif
import Hummingbird
import Synchronization

/// Hands memory freed after a burst of requests back to the system once the server is idle.
///
/// glibc's malloc keeps what a burst freed in its per-thread arenas: after 1,000 concurrent
/// connections pushing, the server held 182 MiB of anonymous memory while idle, of which
/// 54 MiB was in use (measured with `malloc_stats`). `malloc_trim(0)` returns the free part;
/// it runs when requests have completed since the last look and none is in flight, so it
/// never slows a request. What stays in use is bounded by the server's own limits: the
/// largest group commit (`EventLog.Options.maxGroupEvents`, whose pages LMDB keeps for reuse)
/// and each tenant log's in-memory stream index tail.
final class IdleMemoryRelease: Sendable {
    private struct Activity {
        var inFlight = 0
        var completed: UInt64 = 0
        var completedAtLastRelease: UInt64 = 0
    }
    private let activity = Mutex(Activity())
    /// How often the server looks for idleness.
    let interval: Duration

    init(interval: Duration = .seconds(2)) {
        self.interval = interval
    }

    /// Counts requests in flight, for ``run()``.
    func middleware<Context: RequestContext>() -> some RouterMiddleware<Context> {
        ActivityMiddleware(release: self)
    }

    /// Looks for idleness every ``interval`` until cancelled.
    func run() async {
        while (try? await Task.sleep(for: interval)) != nil {
            let idleAfterWork = activity.withLock { a -> Bool in
                guard a.inFlight == 0, a.completed != a.completedAtLastRelease else { return false }
                a.completedAtLastRelease = a.completed
                return true
            }
            if idleAfterWork { Self.release() }
        }
    }

    static func release() {
        #if canImport(Glibc)
        // malloc.h is not part of Swift's Glibc module: look the function up by name.
        typealias MallocTrim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
        #endif
    }

    fileprivate func begin() { activity.withLock { $0.inFlight += 1 } }

    fileprivate func end() {
        activity.withLock { a in
            a.inFlight -= 1
            a.completed &+= 1
        }
    }
}

private struct ActivityMiddleware<Context: RequestContext>: RouterMiddleware {
    let release: IdleMemoryRelease

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        release.begin()
        defer { release.end() }
        return try await next(request, context)
    }
}
