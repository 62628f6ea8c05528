#include "edgeadmm/baremetal/format.h"

#include <cstdint>

namespace edgeadmm::baremetal {
namespace {

// Appends characters to a bounded buffer and counts the untruncated length.
class Sink {
 public:
  Sink(char* buffer, size_t size) : buffer_(buffer), size_(size) {}

  void Put(char c) {
    if (size_ > 0 && length_ + 1 < size_) buffer_[length_] = c;
    ++length_;
  }
  void Repeat(char c, int count) {
    for (int i = 0; i < count; ++i) Put(c);
  }
  int Finish() {
    if (size_ > 0) buffer_[length_ + 1 < size_ ? length_ : size_ - 1] = '\0';
    return static_cast<int>(length_);
  }

 private:
  char* buffer_;
  size_t size_;
  size_t length_ = 0;
};

struct Spec {
  bool left = false;
  bool zero = false;
  bool plus = false;
  bool space = false;
  int width = 0;
  int precision = -1;
};

// Writes sign/prefix, padding and body according to width and flags.
void Emit(Sink& sink, const Spec& spec, const char* prefix, const char* body,
          int body_length) {
  int prefix_length = 0;
  while (prefix[prefix_length] != '\0') ++prefix_length;
  const int padding = spec.width - prefix_length - body_length;
  if (!spec.left && !spec.zero) sink.Repeat(' ', padding);
  for (int i = 0; i < prefix_length; ++i) sink.Put(prefix[i]);
  if (!spec.left && spec.zero) sink.Repeat('0', padding);
  for (int i = 0; i < body_length; ++i) sink.Put(body[i]);
  if (spec.left) sink.Repeat(' ', padding);
}

const char* SignPrefix(bool negative, const Spec& spec) {
  if (negative) return "-";
  if (spec.plus) return "+";
  if (spec.space) return " ";
  return "";
}

void EmitInteger(Sink& sink, Spec spec, uint64_t magnitude, bool negative,
                 unsigned base, bool upper, const char* prefix) {
  char digits[32];
  int n = 0;
  const char* alphabet = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  do {
    digits[n++] = alphabet[magnitude % base];
    magnitude /= base;
  } while (magnitude != 0);
  if (spec.precision == 0 && n == 1 && digits[0] == '0') n = 0;
  char body[48];
  int length = 0;
  for (int i = n; i < spec.precision && length < 16; ++i) body[length++] = '0';
  while (n > 0) body[length++] = digits[--n];
  if (spec.precision >= 0) spec.zero = false;
  Emit(sink, spec, *prefix != '\0' ? prefix : SignPrefix(negative, spec), body,
       length);
}

// Decimal digits of |value| = 0.d1d2d3... * 10^exponent10, `count` digits,
// rounded; returns the exponent such that value = d1.d2d3... * 10^exponent.
int Digits(double value, int count, char* digits) {
  int exponent = 0;
  if (value != 0.0) {
    while (value >= 1e16) value /= 1e16, exponent += 16;
    while (value >= 10.0) value /= 10.0, ++exponent;
    while (value < 1e-16) value *= 1e16, exponent -= 16;
    while (value < 1.0) value *= 10.0, --exponent;
  }
  for (int i = 0; i < count; ++i) {
    const int d = static_cast<int>(value);
    digits[i] = static_cast<char>('0' + (d > 9 ? 9 : d));
    value = (value - d) * 10.0;
  }
  if (value >= 5.0) {  // round half up on the next digit
    int i = count - 1;
    while (i >= 0 && digits[i] == '9') digits[i--] = '0';
    if (i >= 0) {
      ++digits[i];
    } else {
      for (int j = count - 1; j > 0; --j) digits[j] = digits[j - 1];
      if (count > 0) digits[0] = '1';
      ++exponent;
    }
  }
  return exponent;
}

void EmitFloat(Sink& sink, Spec spec, double value, char conversion) {
  const bool upper = conversion >= 'A' && conversion <= 'Z';
  const char lower = static_cast<char>(upper ? conversion + 32 : conversion);
  const bool negative = value < 0.0 || (value == 0.0 && 1.0 / value < 0.0);
  if (negative) value = -value;
  const char* sign = SignPrefix(negative, spec);
  if (value != value || value > 1.7976931348623157e308) {
    spec.zero = false;
    const char* text =
        value != value ? (upper ? "NAN" : "nan") : (upper ? "INF" : "inf");
    Emit(sink, spec, sign, text, 3);
    return;
  }
  int precision = spec.precision < 0 ? 6 : spec.precision;
  if (precision > 40) precision = 40;
  char digits[64];
  char body[96];
  int length = 0;
  bool exponential = lower == 'e';
  bool strip_zeros = false;
  if (lower == 'g') {
    const int significant = precision == 0 ? 1 : precision;
    const int exponent = Digits(value, significant, digits);
    exponential = exponent < -4 || exponent >= significant;
    precision = exponential ? significant - 1 : significant - 1 - exponent;
    strip_zeros = true;
  }
  int exponent = 0;
  if (exponential) {
    exponent = Digits(value, precision + 1, digits);
    if (value == 0.0) exponent = 0;
    body[length++] = digits[0];
    if (precision > 0) body[length++] = '.';
    for (int i = 1; i <= precision; ++i) body[length++] = digits[i];
  } else {
    // Fixed point: integer part and round(fraction * 10^precision) as
    // 64-bit integers (values beyond 2^63 fall back to exponential form).
    if (precision > 17) precision = 17;
    if (value >= 9.2e18) {
      spec.precision = precision;
      EmitFloat(sink, spec, negative ? -value : value, upper ? 'E' : 'e');
      return;
    }
    uint64_t scale = 1;
    for (int i = 0; i < precision; ++i) scale *= 10;
    uint64_t integer = static_cast<uint64_t>(value);
    const double fraction =
        (value - static_cast<double>(integer)) * static_cast<double>(scale);
    uint64_t fraction_digits = static_cast<uint64_t>(fraction + 0.5);
    if (fraction_digits >= scale) {
      fraction_digits -= scale;
      ++integer;
    }
    char reversed[24];
    int n = 0;
    do {
      reversed[n++] = static_cast<char>('0' + integer % 10);
      integer /= 10;
    } while (integer != 0);
    while (n > 0) body[length++] = reversed[--n];
    if (precision > 0) body[length++] = '.';
    for (uint64_t place = scale / 10; place > 0; place /= 10) {
      body[length++] = static_cast<char>('0' + fraction_digits / place % 10);
    }
  }
  if (strip_zeros && precision > 0) {
    while (body[length - 1] == '0') --length;
    if (body[length - 1] == '.') --length;
  }
  if (exponential) {
    body[length++] = upper ? 'E' : 'e';
    body[length++] = exponent < 0 ? '-' : '+';
    const int e = exponent < 0 ? -exponent : exponent;
    if (e >= 100) body[length++] = static_cast<char>('0' + e / 100);
    body[length++] = static_cast<char>('0' + e / 10 % 10);
    body[length++] = static_cast<char>('0' + e % 10);
  }
  Emit(sink, spec, sign, body, length);
}

// Reads the flags, width, precision and length modifier of one
// conversion; `p` is just past the '%'. Returns where the conversion
// character is; `longs`: 0 int, 1 long, 2 long long, 3 size_t, ptrdiff_t or
// intmax_t. A '*' width or precision is read from `args` (a pointer to the
// caller's va_list, C11 7.16).
const char* ParseSpec(const char* p, va_list* args, Spec& spec, int& longs) {
  for (;; ++p) {
    if (*p == '-')
      spec.left = true;
    else if (*p == '0')
      spec.zero = true;
    else if (*p == '+')
      spec.plus = true;
    else if (*p == ' ')
      spec.space = true;
    else if (*p != '#')
      break;
  }
  if (*p == '*') {
    spec.width = va_arg(*args, int);
    if (spec.width < 0) spec.left = true, spec.width = -spec.width;
    ++p;
  }
  while (*p >= '0' && *p <= '9') spec.width = spec.width * 10 + (*p++ - '0');
  if (*p == '.') {
    ++p;
    spec.precision = 0;
    if (*p == '*') {
      spec.precision = va_arg(*args, int);
      ++p;
    }
    while (*p >= '0' && *p <= '9') {
      spec.precision = spec.precision * 10 + (*p++ - '0');
    }
  }
  longs = 0;
  for (;; ++p) {
    if (*p == 'l')
      ++longs;
    else if (*p == 'z' || *p == 't' || *p == 'j')
      longs = 3;
    else if (*p != 'h' && *p != 'L')
      break;
  }
  return p;
}

// Writes a string argument, at most `precision` characters of it.
void EmitString(Sink& sink, Spec spec, const char* s) {
  if (s == nullptr) s = "(null)";
  int length = 0;
  while (s[length] != '\0' && (spec.precision < 0 || length < spec.precision)) {
    ++length;
  }
  spec.zero = false;
  Emit(sink, spec, "", s, length);
}

// Formats one conversion from `args`; an unknown one is echoed.
void EmitConversion(Sink& sink, Spec spec, char conversion, int longs,
                    va_list* args) {
  switch (conversion) {
    case 'd':
    case 'i': {
      int64_t v = longs == 0   ? va_arg(*args, int)
                  : longs == 1 ? va_arg(*args, long)
                  : longs == 2 ? va_arg(*args, long long)
                               : static_cast<int64_t>(va_arg(*args, ptrdiff_t));
      const uint64_t magnitude =
          v < 0 ? ~static_cast<uint64_t>(v) + 1 : static_cast<uint64_t>(v);
      EmitInteger(sink, spec, magnitude, v < 0, 10, false, "");
      break;
    }
    case 'u':
    case 'x':
    case 'X':
    case 'o': {
      uint64_t v = longs == 0   ? va_arg(*args, unsigned)
                   : longs == 1 ? va_arg(*args, unsigned long)
                   : longs == 2 ? va_arg(*args, unsigned long long)
                                : static_cast<uint64_t>(va_arg(*args, size_t));
      const unsigned base =
          conversion == 'u' ? 10 : (conversion == 'o' ? 8 : 16);
      spec.plus = spec.space = false;
      EmitInteger(sink, spec, v, false, base, conversion == 'X', "");
      break;
    }
    case 'p': {
      const auto v = reinterpret_cast<uintptr_t>(va_arg(*args, void*));
      EmitInteger(sink, spec, v, false, 16, false, "0x");
      break;
    }
    case 'c': {
      const char c = static_cast<char>(va_arg(*args, int));
      spec.zero = false;
      Emit(sink, spec, "", &c, 1);
      break;
    }
    case 's':
      EmitString(sink, spec, va_arg(*args, const char*));
      break;
    case 'f':
    case 'F':
    case 'e':
    case 'E':
    case 'g':
    case 'G':
      EmitFloat(sink, spec, va_arg(*args, double), conversion);
      break;
    case '%':
      sink.Put('%');
      break;
    default:  // unknown conversion: echo it
      sink.Put('%');
      sink.Put(conversion);
      break;
  }
}

}  // namespace

int FormatV(char* buffer, size_t size, const char* format, va_list args) {
  Sink sink(buffer, size);
  va_list rest;
  va_copy(rest, args);
  for (const char* p = format; *p != '\0'; ++p) {
    if (*p != '%') {
      sink.Put(*p);
      continue;
    }
    Spec spec;
    int longs = 0;
    p = ParseSpec(p + 1, &rest, spec, longs);
    if (*p == '\0') break;  // a lone '%' at the end
    EmitConversion(sink, spec, *p, longs, &rest);
  }
  va_end(rest);
  return sink.Finish();
}

int Format(char* buffer, size_t size, const char* format, ...) {
  va_list args;
  va_start(args, format);
  const int length = FormatV(buffer, size, format, args);
  va_end(args);
  return length;
}

}  // namespace edgeadmm::baremetal
