#pragma once

#include <QMap>
#include <QString>
#include <QStringList>

namespace YAML {
class Emitter;
}

namespace ClusterDeck::ExportYaml {

// A string as a YAML scalar that reads back as the same string: a `|` block for text of several
// lines (scripts), quoted where a plain scalar would be read as a number, a boolean or null.
void emitString(YAML::Emitter &out, const QString &text);
void emitStringList(YAML::Emitter &out, const QStringList &list);
// `key: value` inside a map.
void emitKeyValue(YAML::Emitter &out, const char *key, const QString &value);

// What the emitter wrote, as text ending in one newline.
QString text(const YAML::Emitter &out);

} // namespace ClusterDeck::ExportYaml
