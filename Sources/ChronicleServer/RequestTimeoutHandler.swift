import NIOCore
import NIOHTTPTypes

/// Closes a connection whose request, head to end, takes longer than `timeout` to arrive.
///
/// Hummingbird's idle timeout only measures silence, and each body chunk counts as
/// activity: a client sending one byte a second is never silent, and would hold a
/// connection and a handler waiting for its body forever. This puts a bound on the whole
/// request. The time the server takes to answer is not counted (the timer stops at the
/// request's end).
///
/// ## Thread rules
/// A channel handler: every method runs on its channel's event loop, and so does the
/// scheduled close, so `deadline` needs no lock.
final class RequestTimeoutHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let timeout: TimeAmount
    private var deadline: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            deadline?.cancel()
            let channel = context.channel
            deadline = context.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
        case .end:
            deadline?.cancel()
            deadline = nil
        case .body:
            break
        }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }
}
