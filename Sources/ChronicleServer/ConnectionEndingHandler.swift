import HTTPTypes
import JSONText
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Ends connections so that the client reads why: the HTTP layer's own refusals in the
/// protocol's JSON, and an answer that closes the connection delivered before the close.
///
/// - A request the HTTP parser refuses never reaches the router: a head over the decoder's
///   limits (one field over 80 KiB, all of them over 80 KiB, more than 1,000 fields) gets
///   431, anything else that is not HTTP/1.1 gets 400, each with `{"error": …}` and
///   `Connection: close` (Hummingbird alone answers an empty 400).
/// - After a response with `Connection: close` (a 413, say) the server sends nothing more,
///   half-closes, and reads on and discards for up to ``linger`` before it closes. A client
///   that writes its whole oversized body before it reads (as Python's urllib does) then
///   gets the answer: closing at once would leave its bytes unread, and the reset that
///   causes would destroy the answer in flight.
///
/// ## Thread rules
/// A channel handler: every method, and the completions it schedules, runs on its
/// channel's event loop, so its state needs no lock.
final class ConnectionEndingHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// How long a client may go on sending, discarded, after the answer that ends its connection.
    static let linger = TimeAmount.seconds(10)

    private let logger: Logger
    private let metrics: ServerMetrics
    /// A request's head has arrived and its end has not.
    private var requestOpen = false
    /// A response's head has been written and its end has not.
    private var responding = false
    /// The response being written ends the connection.
    private var closeAfterResponse = false
    /// The last answer is on its way: what arrives is discarded, what is written is refused.
    private var ending = false
    private var lingerClose: Scheduled<Void>?

    init(logger: Logger, metrics: ServerMetrics) {
        self.logger = logger
        self.metrics = metrics
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !ending else { return }
        switch unwrapInboundIn(data) {
        case .head: requestOpen = true
        case .end: requestOpen = false
        case .body: break
        }
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // Discarding reads on whatever the handlers behind this one want: Hummingbird stops
        // reading a request that asked for `Connection: close` once it has answered.
        if ending { context.read() }
        context.fireChannelReadComplete()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard !ending else {
            promise?.fail(ChannelError.outputClosed)
            return
        }
        switch unwrapOutboundIn(data) {
        case .head(let head):
            responding = true
            closeAfterResponse = head.headerFields[.connection]?.lowercased() == "close"
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            responding = false
            guard closeAfterResponse else {
                context.write(data, promise: promise)
                return
            }
            ending = true
            let written = context.eventLoop.makePromise(of: Void.self)
            written.futureResult.cascade(to: promise)
            context.writeAndFlush(data, promise: written)
            let channel = context.channel
            written.futureResult.whenComplete { _ in channel.close(mode: .output, promise: nil) }
            lingerClose = context.eventLoop.scheduleTask(in: Self.linger) { channel.close(promise: nil) }
            context.read()
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        guard !ending else { return }
        guard !responding else {
            // An answer is half written: another cannot follow it.
            context.close(promise: nil)
            return
        }
        let (status, message) = Self.answer(to: parserError)
        logger.notice("request refused", metadata: ["status": "\(status.code)", "error": "\(message)"])
        metrics.request(path: nil, method: "unknown", status: status.code, duration: .zero)
        let body = ByteBuffer(string: "{\"error\":" + JSONQuoting.quoted(message) + "}")
        let head = HTTPResponse(status: status, headerFields: [
            .contentType: "application/json; charset=utf-8", .contentLength: "\(body.readableBytes)", .connection: "close",
        ])
        write(context: context, data: wrapOutboundOut(.head(head)), promise: nil)
        write(context: context, data: wrapOutboundOut(.body(body)), promise: nil)
        write(context: context, data: wrapOutboundOut(.end(nil)), promise: nil)
        // A handler reading the request's body must learn that it will not arrive whole.
        if requestOpen { context.fireErrorCaught(error) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        lingerClose?.cancel()
        lingerClose = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        lingerClose?.cancel()
        lingerClose = nil
    }

    /// The status and message for what the HTTP parser refused.
    static func answer(to error: HTTPParserError) -> (HTTPResponse.Status, String) {
        switch error {
        case .headerOverflow:
            (.requestHeaderFieldsTooLarge,
             "the request's header fields are too large: at most 1,000 fields and 80 KiB in all")
        default:
            (.badRequest, "malformed HTTP/1.1 request (\(error))")
        }
    }
}
