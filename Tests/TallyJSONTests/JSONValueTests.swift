import Foundation
import Synchronization
import Testing

@testable import TallyProtocol

@Suite struct JSONValueTests {
    private func nested(objects depth: Int) -> Data {
        Data((String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)).utf8)
    }

    private func nested(arrays depth: Int) -> Data {
        Data((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8)
    }

    @Test func nestingUpToTheBoundDecodes() throws {
        let innermost = (1..<JSONValue.maximumDepth).reduce(JSONValue.array([])) { inner, _ in .array([inner]) }
        #expect(try JSONDecoder().decode(JSONValue.self, from: nested(arrays: JSONValue.maximumDepth)) == innermost)
        #expect(try JSONDecoder().decode(JSONValue.self, from: nested(objects: JSONValue.maximumDepth - 1))["a"] != nil)
    }

    @Test func deeperNestingIsRefusedWithItsReason() {
        for document in [nested(objects: JSONValue.maximumDepth + 1), nested(arrays: JSONValue.maximumDepth + 1)] {
            #expect {
                try JSONDecoder().decode(JSONValue.self, from: document)
            } throws: { error in
                guard case .dataCorrupted(let context) = error as? DecodingError else { return false }
                return context.debugDescription == "JSON nested more than 64 levels deep is refused"
            }
        }
    }

    /// An event nesting objects 400 deep (2 KB) used to overflow the 1 MiB stack of the notifier's
    /// inlet thread (`DedicatedThread`) and crash the notifier; it is refused now, on such a thread.
    @Test func deepNestingIsRefusedOnASmallStack() {
        let document = nested(objects: 400)
        let outcome = onSocketThreadStack {
            do {
                _ = try JSONDecoder().decode(JSONValue.self, from: document)
                return "decoded"
            } catch {
                return "\(error)"
            }
        }
        #expect(outcome?.contains("JSON nested more than 64 levels deep is refused") == true, "\(outcome ?? "")")
    }

    /// Requests are read on the gateway's and the workers' socket threads, whose stacks are 1 MiB:
    /// the deepest request `JSONReader` accepts (512 levels) must fit there, built (the worker)
    /// and only checked (the gateway), in a debug build as in a release one.
    @Test func theDeepestRequestFitsASocketThreadsStack() {
        let args = String(repeating: #"{"a":["#, count: 255) + String(repeating: "]}", count: 255)
        let request = Data((#"{"command":"calc.tip","args":"# + args + "}").utf8)
        let outcome = onSocketThreadStack {
            let head = (try? EnvelopeHead.decode(request))?.command ?? "refused"
            let envelope = (try? Envelope.decode(request))?.command ?? "refused"
            let parsed = (try? JSONReader.parse(request)) == nil ? "refused" : "parsed"
            return "\(head) \(envelope) \(parsed)"
        }
        #expect(outcome == "calc.tip calc.tip parsed")
    }

    /// What `body` returns, run on a thread with the stack of the threads that read the network.
    private func onSocketThreadStack(_ body: @escaping @Sendable () -> String) -> String? {
        final class Outcome: Sendable { let text = Mutex<String?>(nil) }
        let outcome = Outcome()
        let finished = DispatchSemaphore(value: 0)
        let thread = Thread {
            let text = body()
            outcome.text.withLock { $0 = text }
            finished.signal()
        }
        thread.stackSize = 1 << 20
        thread.start()
        finished.wait()
        return outcome.text.withLock { $0 }
    }
}
