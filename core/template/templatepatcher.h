#pragma once

#include "clustertemplate.h"
#include "common/error.h"

#include <QByteArray>
#include <QString>

namespace ClusterDeck {

// Writes a form edit back into the admin's own YAML file instead of re-emitting the document:
// only the lines of the fields that changed are replaced, so comments, key order, block scalars
// (`command: |`), flow/block style and quoting of every other field survive byte for byte (the
// round trip ruamel.yaml and kustomize's kyaml offer).
//
// The fields that changed are found by comparing what TemplateWriter writes for `loaded` and for
// `edited` (equal values give equal text there, whatever the file's spelling); each change is then
// applied at the span yaml-cpp's marks give for that field in `original`. A changed scalar keeps
// its quoting style where the new value allows it; a changed sequence keeps its unchanged items'
// text; a value whose shape changed (a scalar that becomes a mapping, an alias whose target
// changed) is re-emitted as that one node, in the samples' style.
//
// Every result is checked by loading it again: when the patched text does not load as `edited`
// (a default that depended on a sibling, an anchor shared by two roles), the patch is redone with
// coarser nodes (a whole role, then a whole top-level field) - never the whole document.
class TemplatePatcher
{
public:
    // `baseDir` resolves the task files roles refer to, as TemplateLoader does.
    static Result<QByteArray> patch(const QByteArray &original, const ClusterTemplate &loaded,
                                    const ClusterTemplate &edited, const QString &baseDir = {});
};

} // namespace ClusterDeck
