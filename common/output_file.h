// output_file.h: the one check every file a program writes goes through (--csv, --plot,
// pictures such as --gif and --frames, the tests' --out, the record of your progress that the
// tests append to), before anything is run:
//
//   const std::string gif = p.text("--gif", "");
//   require_output_file(p, "--gif", gif, ".gif");      // before p.finish(), like reading it
//   require_output_folder(p, "--frames", frames, ".pgm");
//
// The check is of the file that will be written, not of the name typed: symbolic links are
// followed (of the folder, when the file does not exist yet). A path is refused, in one line
// naming the option and exit code 2, when
//   - it lies in one of the course's source folders (an exercise folder, common/, .ci/, .git/):
//     nothing a student types may write over the course (writing in the course's top folder,
//     or anywhere else, is fine);
//   - it is a symbolic link to anything in the course outside build/ (README.md, the Makefile, a
//     record in .progress/, ...): a link named out.csv is not a new file;
//   - its name, or the name of the file a link leads to, does not end in the expected kind's
//     extension (`extension`: ".gif", or several separated by spaces: ".txt .xml"), so a file of
//     another kind is never overwritten (a typo never replaces a source file);
//   - it is a folder (for a file), or a file (for a folder), or not a regular file (a FIFO would
//     block, a device is not a file), or a file with more than one name (a hard link: writing
//     it would change the file under its other names too);
//   - it is in a folder that is missing or not writable, or cannot be created or written;
//   - another output of the same run (--csv and --plot, ...) is that same file.
// Nothing is left behind by the check: a file or folder made to find out is removed again.
// Both calls also record the option's kind for --list-options (options.h), and do nothing else
// when the path is "" (the option was not given). append_line() is how a record is added to a
// file that passed the check: one complete line, in one write.
#pragma once

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>
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

// The path with every symbolic link resolved, or "" when it cannot be (realpath).
inline std::string real_path(const std::string& path) {
    char* real = realpath(path.c_str(), nullptr);
    if (!real) return "";
    std::string out = real;
    std::free(real);
    return out;
}

// The last part of a path ("a/b.csv" -> "b.csv"; "a/b/" -> "b").
inline std::string name_of(const std::string& path) {
    const size_t end = path.find_last_not_of('/');
    if (end == std::string::npos) return path;
    const size_t slash = path.find_last_of('/', end);
    return path.substr(slash == std::string::npos ? 0 : slash + 1, end - (slash == std::string::npos ? 0 : slash + 1) + 1);
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

// Where the already resolved path `real` lies in the course: its path relative to the course's top
// folder ("README.md", ".progress/02_x.steps"), or "" when it is outside the course or in build/.
inline std::string course_file_of(const std::string& real, const std::string& root = course_root()) {
    namespace fs = std::filesystem;
    if (root.empty() || real.empty()) return "";
    const fs::path rel = fs::path(real).lexically_relative(root);
    if (rel.empty() || *rel.begin() == ".." || *rel.begin() == "build") return "";
    return rel == "." ? "./" : rel.string();
}

// "" when a file of kind `extension` may be written at `path`, else why not (one phrase).
inline std::string why_not_output_file(const std::string& path, const std::string& extension) {
    using namespace output_file_detail;
    const std::string folder = course_source_folder_of(path);
    if (!folder.empty())
        return quoted(path) + " is in " + folder + ", a folder of the course's sources: write it outside them "
               "(the course's top folder is fine)";
    struct stat st, link;
    const bool is_link = lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode);
    const bool exists = stat(path.c_str(), &st) == 0;
    const int stat_error = exists ? 0 : errno;
    if (is_link && exists) {  // the file written is the one the link leads to
        const std::string real = real_path(path);
        const std::string in_course = course_file_of(real);
        if (!in_course.empty())
            return quoted(path) + " is a symbolic link to " + quoted(in_course) + " in the course: an output is "
                   "never written through a link into the course (outside build/); give a new file's name";
        if (!S_ISDIR(st.st_mode) && !of_kind(name_of(real), extension))
            return quoted(path) + " is a symbolic link to " + quoted(real) + ", not a " + kind_words(extension) +
                   " file: give a new file's name";
    }
    if (exists && S_ISDIR(st.st_mode)) return quoted(path) + " is a folder; give a file name such as out" + kinds(extension)[0];
    if (exists && !S_ISREG(st.st_mode)) return quoted(path) + " is not a regular file";
    if (!of_kind(path, extension)) return quoted(path) + " must be a file name ending in " + kind_words(extension);
    if (exists) {
        if (st.st_nlink > 1)
            return quoted(path) + " has " + std::to_string((unsigned long long)st.st_nlink) + " names (hard links): "
                   "writing it would change the file under its other names too; give a new file's name";
        const int fd = open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);  // no O_TRUNC: left as it is
        if (fd < 0) return quoted(path) + " cannot be written (" + std::strerror(errno) + ")";
        close(fd);
        return "";
    }
    if (stat_error != ENOENT) return why_unreachable(path, stat_error);
    if (is_link) return quoted(path) + " is a symbolic link to a file that does not exist";
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

// The file a path names, as one word that two names of one file share: its device and inode when
// it exists, else its folder's resolved path and its name. "" when it cannot be told.
inline std::string output_identity(const std::string& path) {
    using namespace output_file_detail;
    struct stat st;
    if (stat(path.c_str(), &st) == 0)
        return std::to_string((unsigned long long)st.st_dev) + ":" + std::to_string((unsigned long long)st.st_ino);
    const std::string folder = real_path(parent_of(path));
    return folder.empty() ? "" : folder + "/" + name_of(path);
}

// Two outputs of one run must be two files: "" when `path` is not one that `claimed` (option, file
// identity) already holds, else why not; a new one is added to `claimed`.
inline std::string why_same_output(std::vector<std::pair<std::string, std::string>>& claimed,
                                   const std::string& option, const std::string& path) {
    const std::string id = output_identity(path);
    if (id.empty()) return "";
    for (const auto& c : claimed)
        if (c.second == id && c.first != option)
            return output_file_detail::quoted(path) + " is the file " + c.first + " writes too: give each its own file";
    claimed.emplace_back(option, id);
    return "";
}

// Adds `line` and a line break to the end of the file at `path` (made if missing), in one write,
// so that a record is never mixed with another; a file that does not end in a line break (a
// record cut short: a full disk, a crash) gets one first, so the cut record stays a line of its
// own. False when it could not be written (and a non-regular file is never opened for writing).
inline bool append_line(const std::string& path, const std::string& line) {
    const int fd = open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0644);
    if (fd < 0) return false;
    struct stat st;
    std::string text = line + "\n";
    bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    char last = '\n';
    if (ok && st.st_size > 0 && pread(fd, &last, 1, st.st_size - 1) == 1 && last != '\n') text = "\n" + text;
    ok = ok && write(fd, text.data(), text.size()) == (ssize_t)text.size();
    return close(fd) == 0 && ok;
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
    struct stat st, link;
    const std::string trimmed = dir.find_last_not_of('/') == std::string::npos ? dir : dir.substr(0, dir.find_last_not_of('/') + 1);
    if (lstat(trimmed.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
        const std::string in_course = course_file_of(real_path(trimmed));
        if (!in_course.empty())
            return quoted(dir) + " is a symbolic link to " + quoted(in_course) + " in the course: an output is "
                   "never written through a link into the course (outside build/); give a new folder's name";
    }
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
    opts.fail_if(option, why_same_output(opts.outputs(), option, path));
}
inline void require_output_folder(const Options& opts, const std::string& option, const std::string& dir,
                                  const std::string& extension) {
    opts.declare(option, "output-folder", output_file_detail::list_of(extension), "");
    if (opts.listing() || dir.empty()) return;
    opts.fail_if(option, why_not_output_folder(dir, extension));
}
