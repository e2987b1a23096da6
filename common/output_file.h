// output_file.h: one check for every option that writes a file (--csv, --plot, --gif...):
// the file must end in its kind's extension, and its folder must exist and be writable.
#pragma once

#include <string>
#include <sys/stat.h>
#include <unistd.h>

#include "options.h"

inline void require_output_file(const Options& opts, const std::string& option, const std::string& path,
                                const std::string& extension) {
    const std::string shown = "'" + Options::printable(path, SIZE_MAX) + "'";
    if (path.size() <= extension.size() || path.compare(path.size() - extension.size(), extension.size(), extension) != 0)
        opts.fail(option, shown + " must be a file name ending in " + extension);
    struct stat st;
    if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
        opts.fail(option, shown + " exists and is not a regular file");
    const size_t slash = path.find_last_of('/');
    const std::string folder = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
    if (stat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        opts.fail(option, "the folder of " + shown + " does not exist");
    if (access(folder.c_str(), W_OK) != 0) opts.fail(option, "the folder of " + shown + " is not writable");
}
