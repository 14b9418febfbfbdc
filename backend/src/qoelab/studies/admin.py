from django.contrib import admin

from qoelab.studies.models import Game, Scenario, Study


class GameInline(admin.TabularInline[Game, Study]):
    model = Game
    extra = 0


class ScenarioInline(admin.TabularInline[Scenario, Study]):
    model = Scenario
    extra = 0


@admin.register(Study)
class StudyAdmin(admin.ModelAdmin[Study]):
    list_display = ["title", "slug", "updated_at"]
    prepopulated_fields = {"slug": ["title"]}
    inlines = [GameInline, ScenarioInline]
