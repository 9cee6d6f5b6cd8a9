import Foundation
import FuzzSupport
import TallyCurrency
import TallyProtocol

/// A search as a person types it: the query folded by `SearchText.fold` (which must be a normal
/// form: folding twice changes nothing), then `currency.search` on the loaded currency data, in
/// English, Japanese or Chinese by the query's length, one result a page, and the second page
/// through the cursor the first gave out. A search either answers or refuses the query with
/// `invalid_argument`. (The search is called as `ServiceHarness` calls it; the `commands` target
/// sends it whole envelopes.)
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCurrencySearch(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let query = String(decoding: Fuzz.input(start, count), as: UTF8.self)
    let folded = SearchText.fold(query)
    Fuzz.require(SearchText.fold(folded) == folded, "folding \(query.debugDescription) twice gives something else than once")

    let locale = [nil, "ja_JP", "zh_Hans_CN"][query.utf8.count % 3]
    guard let first = search(["query": .string(query), "limit": 1], locale: locale) else { return 0 }
    if let cursor = first["next_cursor"] {
        let next = search(["query": .string(query), "limit": 1, "cursor": cursor], locale: locale)
        Fuzz.require(next != nil, "the cursor of a search's first page is refused on its second")
    }
    return 0
}

/// The result of `currency.search` with `args`, or nil when it refuses them with `invalid_argument`.
private func search(_ args: JSONValue, locale: String?) -> JSONValue? {
    do {
        return try LiveServices.shared.harness("currency").call("currency.search", args, locale: locale)
    } catch let error as TallyError {
        Fuzz.require(error.code == .invalidArgument, "currency.search failed: \(error)")
    } catch {
        Fuzz.require(false, "currency.search threw something other than a TallyError: \(error)")
    }
    return nil
}

/// Opens the stores and loads the currency data before the first input, outside its time limit.
@_cdecl("LLVMFuzzerInitialize")
public func initializeCurrencySearch(_ argc: UnsafeMutableRawPointer?, _ argv: UnsafeMutableRawPointer?) -> CInt {
    _ = LiveServices.shared
    return 0
}
