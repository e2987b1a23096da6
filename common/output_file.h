// output_file.h: the one check every option that writes a file goes through (--csv, --plot,
// pictures such as --gif and --frames, the tests' --out), before anything is run:
//
//   const std::string gif = p.text("--gif", "");
//   require_output_file(p, "--gif", gif, ".gif");      // before p.finish(), like reading it
//   require_output_folder(p, "--frames", frames, ".pgm");
//
// A path is refused, in one line naming the option and exit code 2, when it
//   - lies in one of the course's source folders (an exercise folder, common/, .ci/, .git/):
//     nothing a student types may write over the course (writing in the course's top folder,
//     or anywhere else, is fine);
//   - does not end in the expected kind's extension (`extension`: ".gif", or several separated
//     by spaces: ".txt .xml"), so a file of another kind is never overwritten (a typo never
//     replaces a source file);
//   - is a folder (for a file), or a file (for a folder), or not a regular file;
//   - is in a folder that is missing or not writable, or cannot be created or written.
// Nothing is left behind by the check: a file or folder made to find out is removed again.
// Both calls also record the option's kind for --list-options (options.h), and do nothing else
// when the path is "" (the option was not given).
#pragma once

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "options.h"

namespace output_file_detail {

inline std::string quoted(const std::string& path) { return "'" + Options::printable(path, Options::kPathChars) + "'"; }

inline std::string parent_of(const std::string& path) {
    const size_t slash = path.find_last_of('/', path.find_last_not_of('/'));
    return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

inline bool is_folder(const std::string& path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

inline std::string lower(std::string s) {
    for (char& c : s)
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
    return s;
}

// ".txt .xml" -> {".txt", ".xml"}
inline std::vector<std::string> kinds(const std::string& extension) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start < extension.size()) {
        size_t end = extension.find(' ', start);
        if (end == std::string::npos) end = extension.size();
        if (end > start) out.push_back(lower(extension.substr(start, end - start)));
        start = end + 1;
    }
    return out;
}

inline bool of_kind(const std::string& path, const std::string& extension) {
    const std::string name = lower(path.substr(path.find_last_of('/') + 1));
    for (const auto& k : kinds(extension))
        if (name.size() > k.size() && name.compare(name.size() - k.size(), k.size(), k) == 0) return true;
    return false;
}

// ".txt .xml" -> ".txt,.xml" (one word of --list-options)
inline std::string list_of(const std::string& extension) {
    std::string s;
    for (const auto& k : kinds(extension)) s += (s.empty() ? "" : ",") + k;
    return s;
}

// ".gif", ".txt, .log or .xml"
inline std::string kind_words(const std::string& extension) {
    const std::vector<std::string> k = kinds(extension);
    std::string s;
    for (size_t i = 0; i < k.size(); ++i) s += (i == 0 ? "" : i + 1 == k.size() ? " or " : ", ") + k[i];
    return s;
}

inline std::string why_unreachable(const std::string& path, int error) {
    if (error == ELOOP) return quoted(path) + " cannot be reached: a loop of symbolic links";
    if (error == EACCES) return quoted(path) + " cannot be reached: a folder on the way does not let you in";
    if (error == ENOTDIR) return quoted(path) + " cannot be reached: a part of the path is a file, not a folder";
    if (error == ENAMETOOLONG) return quoted(path) + " is too long a path";
    return quoted(path) + " cannot be reached (" + std::strerror(error) + ")";
}

}  // namespace output_file_detail

// The course's top folder (the one that holds common/output_file.h), found from the running
// program's own location (build/NN_x/VARIANT/program); "" when the program runs outside one.
inline std::string course_root() {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return "";
    for (fs::path d = exe.parent_path(); !d.empty(); d = d.parent_path()) {
        if (fs::is_regular_file(d / "common" / "output_file.h", ec) && fs::is_regular_file(d / "Makefile", ec))
            return fs::weakly_canonical(d, ec).string();
        if (d == d.root_path()) break;
    }
    return "";
}

// The course's source folder that `path` would be written into ("NN_name/", "common/"),
// or "" when it is outside them. Symbolic links are followed, so a link cannot lead in.
inline std::string course_source_folder_of(const std::string& path, const std::string& root = course_root()) {
    namespace fs = std::filesystem;
    if (root.empty()) return "";
    std::error_code ec;
    const fs::path full = fs::weakly_canonical(fs::absolute(path, ec), ec);
    if (ec) return "";
    const fs::path rel = full.lexically_relative(root);
    if (rel.empty() || *rel.begin() == ".." || rel == ".") return "";
    const std::string top = rel.begin()->string();
    const bool exercise = top.size() > 3 && top[0] >= '0' && top[0] <= '9' && top[1] >= '0' && top[1] <= '9' &&
                          top[2] == '_' && fs::is_directory(fs::path(root) / top, ec);
    const bool shared = top == "common" || top == ".ci" || top == ".git";
    // The path itself being the folder (`--frames common`) counts; a file in the top folder does not.
    return (exercise || shared) && (std::distance(rel.begin(), rel.end()) > 1 || fs::is_directory(full, ec))
               ? top + "/"
               : "";
}

// "" when a file of kind `extension` may be written at `path`, else why not (one phrase).
inline std::string why_not_output_file(const std::string& path, const std::string& extension) {
    using namespace output_file_detail;
    const std::string folder = course_source_folder_of(path);
    if (!folder.empty())
        return quoted(path) + " is in " + folder + ", a folder of the course's sources: write it outside them "
               "(the course's top folder is fine)";
    struct stat st;
    const bool exists = stat(path.c_str(), &st) == 0;
    const int stat_error = exists ? 0 : errno;
    if (exists && S_ISDIR(st.st_mode)) return quoted(path) + " is a folder; give a file name such as out" + kinds(extension)[0];
    if (exists && !S_ISREG(st.st_mode)) return quoted(path) + " is not a regular file";
    if (!of_kind(path, extension)) return quoted(path) + " must be a file name ending in " + kind_words(extension);
    if (exists) {
        const int fd = open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);  // no O_TRUNC: left as it is
        if (fd < 0) return quoted(path) + " cannot be written (" + std::strerror(errno) + ")";
        close(fd);
        return "";
    }
    if (stat_error != ENOENT) return why_unreachable(path, stat_error);
    struct stat link;
    if (lstat(path.c_str(), &link) == 0) return quoted(path) + " is a symbolic link to a file that does not exist";
    const std::string parent = parent_of(path);
    if (stat(parent.c_str(), &st) != 0)
        return errno == ENOENT ? "the folder " + quoted(parent) + " does not exist" : why_unreachable(parent, errno);
    if (!S_ISDIR(st.st_mode)) return quoted(parent) + " is a file, not a folder";
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return quoted(path) + " cannot be created (" + std::strerror(errno) + ")";
    close(fd);
    unlink(path.c_str());
    return "";
}

// "" when files of kind `extension` may be written into the folder `dir` (made if missing: its
// parent must exist), else why not. Its own files there are overwritten: they are its kind.
inline std::string why_not_output_folder(const std::string& dir, const std::string& extension) {
    using namespace output_file_detail;
    (void)extension;
    const std::string folder = course_source_folder_of(dir);
    if (!folder.empty())
        return quoted(dir) + " is in " + folder + ", a folder of the course's sources: write it outside them "
               "(a new folder in the course's top folder is fine)";
    struct stat st;
    if (stat(dir.c_str(), &st) == 0) {
        if (!S_ISDIR(st.st_mode)) return quoted(dir) + " is a file, not a folder";
        std::string probe = dir + "/.course_probe_XXXXXX";
        const int fd = mkstemp(&probe[0]);
        if (fd < 0) return "cannot write into " + quoted(dir) + " (" + std::strerror(errno) + ")";
        close(fd);
        unlink(probe.c_str());
        return "";
    }
    if (errno != ENOENT) return why_unreachable(dir, errno);
    const std::string parent = parent_of(dir);
    if (!is_folder(parent)) {
        if (stat(parent.c_str(), &st) != 0 && errno != ENOENT) return why_unreachable(parent, errno);
        return "the folder " + quoted(parent) + " does not exist (only the last folder of the path is made)";
    }
    if (mkdir(dir.c_str(), 0755) != 0) return "cannot make the folder " + quoted(dir) + " (" + std::strerror(errno) + ")";
    rmdir(dir.c_str());
    return "";
}

// The option's check: one line and exit 2 when the path cannot be used (see the top).
inline void require_output_file(const Options& opts, const std::string& option, const std::string& path,
                                const std::string& extension) {
    opts.declare(option, "output-file", output_file_detail::list_of(extension), "");
    if (opts.listing() || path.empty()) return;
    opts.fail_if(option, why_not_output_file(path, extension));
}
inline void require_output_folder(const Options& opts, const std::string& option, const std::string& dir,
                                  const std::string& extension) {
    opts.declare(option, "output-folder", output_file_detail::list_of(extension), "");
    if (opts.listing() || dir.empty()) return;
    opts.fail_if(option, why_not_output_folder(dir, extension));
}
