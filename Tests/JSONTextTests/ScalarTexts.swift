/// Every Unicode scalar of the Basic Multilingual Plane and two beyond it (an emoji and the
/// last scalar), as texts of at most 4,096 scalars each: what the quoter and the scanner must
/// carry through unchanged.
let everyScalarInTexts: [String] = {
    var scalars = (0x00...0xD7FF).compactMap(Unicode.Scalar.init)
    scalars += (0xE000...0xFFFF).compactMap(Unicode.Scalar.init)
    scalars += [Unicode.Scalar(0x1F642)!, Unicode.Scalar(0x10FFFF)!]
    return stride(from: 0, to: scalars.count, by: 4096).map { start in
        String(String.UnicodeScalarView(scalars[start..<min(start + 4096, scalars.count)]))
    }
}()
