import Foundation

/// Runs `body` with a fresh ``TestStore`` and removes it afterwards, whatever happens.
func withStore(_ body: (TestStore) async throws -> Void) async throws {
    let store = try TestStore()
    do {
        try await body(store)
    } catch {
        await store.cleanup()
        throw error
    }
    await store.cleanup()
}
