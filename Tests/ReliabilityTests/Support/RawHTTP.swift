import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP connection to 127.0.0.1 speaking HTTP/1.1 byte by byte, for the requests a
/// well-behaved client library will not send (no content type, broken UTF-8, a body that
/// trickles in, a thousand sockets at once).
///
/// Its calls block: run them through ``onThread(_:)``, never on Swift's cooperative
/// threads, which the server under test needs for its own handlers.
final class RawConnection {
    let fd: Int32
    private var buffer: [UInt8] = []

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Connects to `port` on the loopback address. `timeout` bounds every later read and
    /// write: a hang guard, far above the time they take.
    init(port: Int, timeout: Int = 30) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let code = errno
            Glibc.close(fd)
            throw Failure(description: "connect: errno \(code)")
        }
    }

    deinit { Glibc.close(fd) }

    /// Sends every byte; `false` when the server has closed the connection.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { return false }
            sent += count
        }
        return true
    }

    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Waits up to `milliseconds` for the server to send something or close; `true` if it did.
    func serverActs(within milliseconds: Int32) -> Bool {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, milliseconds) > 0
    }

    /// Reads more bytes into the buffer; `false` at end of stream (or a reset).
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            buffer += chunk.prefix(count)
            return true
        }
        if count == 0 || errno == ECONNRESET { return false }
        throw Failure(description: "recv: errno \(errno)")
    }

    /// Reads until the server closes the connection; returns what arrived.
    func readToEnd() throws -> [UInt8] {
        while try fill() {}
        defer { buffer = [] }
        return buffer
    }

    /// The next response: status, lowercased header names, body (by `Content-Length`);
    /// `nil` when the connection ends before a whole response arrived.
    func readResponse() throws -> HTTPReply? {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        while headEnd == nil {
            if let found = (0..<max(0, buffer.count - 3)).first(where: { buffer[$0..<$0 + 4].elementsEqual(separator) }) {
                headEnd = found
            } else if try !fill() {
                return nil
            }
        }
        let head = String(decoding: buffer[..<headEnd!], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw Failure(description: "bad status line '\(head[0])'") }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        let bodyStart = headEnd! + 4
        while buffer.count < bodyStart + length {
            if try !fill() { return nil }
        }
        let body = Array(buffer[bodyStart..<bodyStart + length])
        buffer.removeSubrange(..<(bodyStart + length))
        return HTTPReply(status: status, headers: headers, body: body)
    }
}

/// A response read off a ``RawConnection``.
struct HTTPReply: Sendable {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }

    /// The `{"error": …}` message.
    var errorMessage: String? {
        (try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])?["error"] as? String
    }

    var object: [String: Any] { ((try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]) ?? [:] }
}

/// Runs blocking `body` on a thread of its own and returns its result. A `background`
/// thread runs at the lowest scheduling priority (long CPU-bound loops such as fuzzing, so
/// the tests running beside them keep their share of the machine).
func onThread<T: Sendable>(background: Bool = false, _ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            #if os(Linux)
            // On Linux the nice value is per thread, and 0 names the calling one.
            if background { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19) }
            #endif
            continuation.resume(with: Result { try body() })
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
}

/// An HTTP/1.1 request as bytes.
func request(_ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8]? = nil,
             contentLength: Bool = true) -> [UInt8] {
    var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    for (name, value) in headers { text += "\(name): \(value)\r\n" }
    if let body, contentLength { text += "Content-Length: \(body.count)\r\n" }
    text += "\r\n"
    return Array(text.utf8) + (body ?? [])
}
