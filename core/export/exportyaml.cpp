#include "exportyaml.h"

#include <QRegularExpression>

#include <yaml-cpp/yaml.h>

namespace ClusterDeck::ExportYaml {

namespace {

// Plain scalars that YAML 1.1 or 1.2 readers (PyYAML, yaml-cpp, Go's yaml) would not take as a
// string: numbers, booleans (yes/no/on/off included), null, and anything starting like a number.
bool readsAsNonString(const QString &text)
{
    static const QRegularExpression special(
        QStringLiteral("^(?:[-+]?[0-9.].*|[-+]?\\.(?:inf|Inf|INF)|\\.(?:nan|NaN|NAN)|~|null|Null|"
                       "NULL|true|True|TRUE|false|False|FALSE|yes|Yes|YES|no|No|NO|on|On|ON|"
                       "off|Off|OFF|y|Y|n|N|<<|=)$"));
    return text.isEmpty() || special.match(text).hasMatch();
}

} // namespace

void emitString(YAML::Emitter &out, const QString &text)
{
    const std::string utf8 = text.toStdString();
    // A `|` block reads back with exactly one final newline (yaml-cpp writes no chomping
    // indicator), so only such text is written as one.
    if (text.endsWith(QLatin1Char('\n')) && !text.endsWith(QStringLiteral("\n\n")) &&
        !text.startsWith(QLatin1Char(' ')) && !text.startsWith(QLatin1Char('\n')) &&
        !text.contains(QLatin1Char('\t')) && !text.contains(QLatin1Char('\r'))) {
        out << YAML::Literal << utf8;
        return;
    }
    if (readsAsNonString(text))
        out << YAML::DoubleQuoted << utf8;
    else
        out << utf8;
}

void emitStringList(YAML::Emitter &out, const QStringList &list)
{
    out << YAML::BeginSeq;
    for (const QString &s : list)
        emitString(out, s);
    out << YAML::EndSeq;
}

void emitKeyValue(YAML::Emitter &out, const char *key, const QString &value)
{
    out << YAML::Key << key << YAML::Value;
    emitString(out, value);
}

QString text(const YAML::Emitter &out)
{
    QString s = QString::fromUtf8(out.c_str());
    if (!s.endsWith(QLatin1Char('\n')))
        s += QLatin1Char('\n');
    return s;
}

} // namespace ClusterDeck::ExportYaml
