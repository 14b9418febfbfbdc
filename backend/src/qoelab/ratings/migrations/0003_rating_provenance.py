"""Rating.provenance; imported ratings are marked {"backend": "import"}, earlier ones keep
{} (the backend that served them was not recorded)."""

from typing import Any

from django.db import migrations, models


def mark_imported(apps: Any, schema_editor: Any) -> None:
    Rating = apps.get_model("ratings", "Rating")
    Rating.objects.filter(source="import").update(provenance={"backend": "import"})


class Migration(migrations.Migration):
    dependencies = [
        ("ratings", "0002_rating_values"),
    ]

    operations = [
        migrations.AddField(
            model_name="rating",
            name="provenance",
            field=models.JSONField(default=dict),
        ),
        migrations.RunPython(mark_imported, migrations.RunPython.noop),
    ]
