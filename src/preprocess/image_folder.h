// Folders of calibration images: which folders hold images, and their files in order.
#pragma once
#include <string>
#include <vector>

namespace ms::preprocess {

// A folder holds images when any of its files has an image extension (.jpg .jpeg .png .bmp).
bool holds_images(const std::string& dir);

// Every regular file of `dir`, sorted by name; each must have an image extension (a stray text or
// tensor file is InvalidInput naming it, before anything is decoded). No files is InvalidInput.
std::vector<std::string> list_images(const std::string& dir);

}  // namespace ms::preprocess
