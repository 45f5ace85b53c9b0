#pragma once

#include "imageinventory.h"

#include <QJsonObject>

namespace ClusterDeck::Registry {

// `image ls --json`: {"hosts": [...], "images": [{"image", "digest", "size", "oci": {"title",
// "version", "source", "revision"} (only the keys the image has; absent when it has none),
// "hosts": {host: {"id", "size", "created", "containers"}}}], "errors": {host: message}}.
// Keys are only ever added, never renamed.
QJsonObject imageInventoryToJson(const ImageInventory &inventory);

} // namespace ClusterDeck::Registry
