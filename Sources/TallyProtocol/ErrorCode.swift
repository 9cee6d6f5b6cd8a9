/// gRPC's canonical status codes, in snake_case, as Tally puts them on the wire.
public enum ErrorCode: String, Codable, Sendable, CaseIterable {
    case invalidArgument = "invalid_argument"
    case notFound = "not_found"
    case alreadyExists = "already_exists"
    case failedPrecondition = "failed_precondition"
    case permissionDenied = "permission_denied"
    case unauthenticated = "unauthenticated"
    case unavailable = "unavailable"
    case deadlineExceeded = "deadline_exceeded"
    case resourceExhausted = "resource_exhausted"
    case unimplemented = "unimplemented"
    case `internal` = "internal"
}
