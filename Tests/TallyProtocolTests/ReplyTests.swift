import Foundation
import Testing

@testable import TallyProtocol

@Suite struct ReplyTests {
    private struct Sample: Encodable {
        let total = "99.12"
        let tip = "15.12"
    }

    @Test func successKeepsKeysInContractOrder() throws {
        let body = try Reply.success(id: "c-1", result: Sample())
        #expect(String(decoding: body, as: UTF8.self) == #"{"id":"c-1","ok":true,"result":{"tip":"15.12","total":"99.12"}}"#)
        let decoded = try Reply.decode(body)
        #expect(decoded.isOK && decoded.id == "c-1" && decoded.result?["tip"] == "15.12")
    }

    @Test func failureOmitsAbsentIdAndField() throws {
        let body = Reply.failure(id: nil, error: TallyError(.unavailable, "no calc worker"))
        #expect(String(decoding: body, as: UTF8.self) == #"{"ok":false,"error":{"code":"unavailable","message":"no calc worker"}}"#)
        let withField = Reply.failure(id: "x\"y", error: .invalidArgument("bad", field: "args.amount"))
        let decoded = try Reply.decode(withField)
        #expect(decoded.id == "x\"y")
        #expect(decoded.error == TallyError(.invalidArgument, "bad", field: "args.amount"))
    }

    @Test func everyCodeIsSnakeCase() {
        for code in ErrorCode.allCases {
            #expect(code.rawValue.allSatisfy { $0.isLowercase || $0 == "_" }, "\(code)")
        }
        #expect(ErrorCode.allCases.count == 11)
    }
}
