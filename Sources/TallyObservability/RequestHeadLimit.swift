import NIOCore

/// Bounds what a connection of `MetricsEndpoint` may send before it is answered: past 8 KiB
/// without a whole request head, the connection is answered 431 and closed, so a client cannot
/// make the HTTP decoder buffer without end. It sits before the decoder, which decodes in the
/// same call, and sees the answer go out (an outbound write) once the head was whole.
final class RequestHeadLimit: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Largest request head read.
    static let maximumHeadBytes = 8 * 1024

    private var received = 0
    private var answered = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        received += unwrapInboundIn(data).readableBytes
        context.fireChannelRead(data)
        guard !answered, received > Self.maximumHeadBytes else { return }
        answered = true
        let body = "request head over 8 KiB\n"
        let response =
            "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain; charset=utf-8\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(channel.allocator.buffer(string: response))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        answered = true
        context.write(data, promise: promise)
    }
}
