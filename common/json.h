// json.h: the little JSON the course's records need (records.h), written and read back.
//
//   std::string s = json::quote("a \"b\"\n");          // "\"a \\\"b\\\"\\n\""
//   json::Value v;
//   if (json::parse(text, v) && v.is_object()) v["steps"][0]["name"].text;
//
// Strings are bytes: control bytes, '"' and '\' are escaped, other bytes pass as they are (a
// name is never re-encoded). The reader takes one value with nothing after it but blanks, nests
// at most 32 deep, and refuses anything else (a record cut short, junk): false, never a crash.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace json {

inline std::string quote(const std::string& s) {
    std::string out = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += (char)c;
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c < 0x20 || c == 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else {
            out += (char)c;
        }
    }
    return out + "\"";
}

inline std::string list(const std::vector<std::string>& items) {  // items already written as JSON
    std::string out = "[";
    for (size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + items[i];
    return out + "]";
}
inline std::string strings(const std::vector<std::string>& texts) {
    std::vector<std::string> items;
    for (const auto& t : texts) items.push_back(quote(t));
    return list(items);
}

struct Value {
    enum Kind { null, boolean, number, string, array, object } kind = null;
    bool yes = false;
    double num = 0;
    std::string text;
    std::vector<Value> items;                           // an array's
    std::vector<std::pair<std::string, Value>> fields;  // an object's, in order

    bool is_object() const { return kind == object; }
    bool is_array() const { return kind == array; }
    bool is_string() const { return kind == string; }
    bool is_number() const { return kind == number; }
    bool has(const std::string& key) const {
        for (const auto& f : fields)
            if (f.first == key) return true;
        return false;
    }
    // A missing field or item is a null Value: reading a record never throws.
    const Value& operator[](const std::string& key) const {
        for (const auto& f : fields)
            if (f.first == key) return f.second;
        return missing();
    }
    const Value& operator[](size_t i) const { return i < items.size() ? items[i] : missing(); }
    // A whole number in [lo, hi], or `otherwise`.
    long long whole(long long lo, long long hi, long long otherwise = -1) const {
        if (kind != number || num != (double)(long long)num || num < (double)lo || num > (double)hi) return otherwise;
        return (long long)num;
    }

private:
    static const Value& missing() {
        static const Value none;
        return none;
    }
};

namespace detail {
struct Reader {
    const std::string& s;
    size_t i = 0;
    void blanks() {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
    }
    bool literal(const char* word) {
        const std::string w = word;
        if (s.compare(i, w.size(), w) != 0) return false;
        i += w.size();
        return true;
    }
    bool text(std::string& out) {
        if (i >= s.size() || s[i] != '"') return false;
        for (++i; i < s.size(); ++i) {
            const unsigned char c = (unsigned char)s[i];
            if (c == '"') {
                ++i;
                return true;
            }
            if (c < 0x20) return false;
            if (c != '\\') {
                out += (char)c;
                continue;
            }
            if (++i >= s.size()) return false;
            switch (s[i]) {
                case '"': out += '"'; break;
                case '\\': out += '\\'; break;
                case '/': out += '/'; break;
                case 'n': out += '\n'; break;
                case 't': out += '\t'; break;
                case 'r': out += '\r'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'u': {  // the writer's \u00XX; other code points as UTF-8
                    if (i + 4 >= s.size()) return false;
                    const std::string hex = s.substr(i + 1, 4);
                    char* end = nullptr;
                    const long cp = std::strtol(hex.c_str(), &end, 16);
                    if (end != hex.c_str() + 4) return false;
                    if (cp < 0x80) out += (char)cp;
                    else if (cp < 0x800) out += (char)(0xC0 | (cp >> 6)), out += (char)(0x80 | (cp & 0x3F));
                    else out += (char)(0xE0 | (cp >> 12)), out += (char)(0x80 | ((cp >> 6) & 0x3F)), out += (char)(0x80 | (cp & 0x3F));
                    i += 4;
                    break;
                }
                default: return false;
            }
        }
        return false;
    }
    bool value(Value& v, int depth) {
        if (depth > 32) return false;
        blanks();
        if (i >= s.size()) return false;
        const char c = s[i];
        if (c == '{') {
            v.kind = Value::object;
            ++i;
            blanks();
            if (i < s.size() && s[i] == '}') return ++i, true;
            for (;;) {
                std::string key;
                blanks();
                if (!text(key)) return false;
                blanks();
                if (i >= s.size() || s[i] != ':') return false;
                ++i;
                Value item;
                if (!value(item, depth + 1)) return false;
                v.fields.emplace_back(std::move(key), std::move(item));
                blanks();
                if (i < s.size() && s[i] == ',') { ++i; continue; }
                if (i < s.size() && s[i] == '}') return ++i, true;
                return false;
            }
        }
        if (c == '[') {
            v.kind = Value::array;
            ++i;
            blanks();
            if (i < s.size() && s[i] == ']') return ++i, true;
            for (;;) {
                Value item;
                if (!value(item, depth + 1)) return false;
                v.items.push_back(std::move(item));
                blanks();
                if (i < s.size() && s[i] == ',') { ++i; continue; }
                if (i < s.size() && s[i] == ']') return ++i, true;
                return false;
            }
        }
        if (c == '"') return v.kind = Value::string, text(v.text);
        if (literal("true")) return v.kind = Value::boolean, v.yes = true, true;
        if (literal("false")) return v.kind = Value::boolean, true;
        if (literal("null")) return true;
        const size_t start = i;
        while (i < s.size() && std::string("+-0123456789.eE").find(s[i]) != std::string::npos) ++i;
        if (i == start) return false;
        const std::string number = s.substr(start, i - start);
        char* end = nullptr;
        v.kind = Value::number;
        v.num = std::strtod(number.c_str(), &end);
        return end == number.c_str() + number.size();
    }
};
}  // namespace detail

// The one value in `text`: false (and `out` unusable) when `text` is not exactly one JSON value.
inline bool parse(const std::string& text, Value& out) {
    out = Value();
    detail::Reader r{text};
    if (!r.value(out, 0)) return false;
    r.blanks();
    return r.i == text.size();
}

}  // namespace json
